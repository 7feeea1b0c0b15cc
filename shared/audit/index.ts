/**
 * Match logs in the browser (package export "hitreg/audit"): the log's codec (../matchlog), the
 * integrity replay that re-judges every shot bit for bit, and verifyMatchLog.
 */
export * from '../matchlog/index';
export * from './replay';
export * from './verify';
export * from './logEnd';
export { checkHitHealth } from './hitHealth';
export { ProjectileAuditor, type ProjectileAudit, type ProjectileMismatch, type UnexplainedDeath } from './projectiles';
