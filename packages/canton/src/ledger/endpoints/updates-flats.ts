/**
 * `POST /v2/updates/flats`: the same request, rule and answer as `POST /v2/updates` (deprecated upstream, removed
 * in 3.6; INTERFACE.md names it).
 */
import type { Endpoint } from '../endpoint.ts';
import { updates } from './updates.ts';

type Updates = typeof updates;

export const updatesFlats: Endpoint<
  '/v2/updates/flats',
  Updates['body'],
  Updates['query'],
  Updates['response']
> = {
  ...updates,
  path: '/v2/updates/flats',
};
