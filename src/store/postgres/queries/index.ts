/** Every subject's store operations (../../sql-store.ts `Operations`), one query file each: a new query file adds its line. */
export { claimOperations } from '../claim/claim.js';
export { apiKeyOperations } from './api-keys.js';
export { auditOperations } from './audit.js';
export { backfillOperations } from './backfill.js';
export { cronJobOperations } from './cron-jobs.js';
export { executionSearchOperations } from './execution-search.js';
export { executionOperations } from './executions.js';
export { flowControlOperations } from './flow-control.js';
export { idempotencyOperations } from './idempotency.js';
export { nodeOperations } from './nodes.js';
export { notificationOperations } from './notifications.js';
export { scheduleOperations } from './schedules.js';
export { secretsOperations } from './secrets.js';
export { settingOperations } from './settings.js';
