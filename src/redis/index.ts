// Public surface of src/redis: the connection, the key registry, the Lua loader, errors, the lease, durability,
// the availability metric.
export { type RedisTarget, redisConnection } from './connection.ts';
export { type Durability, replication } from './durability.ts';
export { redisFailed, StoreError, type StoreErrorCode } from './errors.ts';
export { keyPrefix, type RedisKeys, redisKeys } from './keys.ts';
export {
  LAYOUT_VERSION,
  LayoutError,
  type Migration,
  migrateLayout,
  storedVersion,
} from './layout.ts';
export { Lease, type LeaseOptions, leaseHolder } from './lease.ts';
export { redisMetrics } from './metrics.ts';
export { exclusive } from './mutex.ts';
export { type LuaScript, loadScript, runScript } from './scripts.ts';
