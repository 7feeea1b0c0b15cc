/** Match logs in the browser (package export "hitreg/audit"): frames, records, shot records and the replay. */
export * from '../matchlog/frame';
export * from '../matchlog/records';
export * from '../matchlog/shotRecord';
export * from './replay';
export { crc32 } from '../matchlog/crc32';
export * from './verify';
