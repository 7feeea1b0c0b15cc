/** Match logs in the browser (package export "hitreg/audit"): frames, records, shot records and the replay. */
export * from './frame';
export * from './records';
export * from './shotRecord';
export * from './replay';
export { crc32 } from './crc32';
export * from './verify';
