// /wallet/v1/parties and what hangs under a party: the registry, its history and holdings, its activity feed.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps, AppEnv } from '../../context.ts';
import { activityRoutes } from './activities.ts';
import { historyRoutes } from './history.ts';
import { partyRegistryRoutes } from './registry.ts';

export function partyRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  partyRegistryRoutes(app, deps);
  historyRoutes(app, deps);
  activityRoutes(app, deps);
}
