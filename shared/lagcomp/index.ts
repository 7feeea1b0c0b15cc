/** Lag compensation: player poses, per-player snapshot history, and rewind-and-test against hitboxes. */
export * from './pose';
export * from './history';
export * from './rewind';
