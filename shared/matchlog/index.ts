/**
 * The match log's codec: the framing (preamble, length-prefixed CRC-checked records, the writer's
 * gap and note frames), the header, tick, event and end records, and the shot record (the message
 * as received, its timing, the rules state before and the verdict), and the projectile records. The room's writer (server/matchlog) and the
 * audit's replay (../audit) both read and write logs through it.
 */
export * from './frame';
export * from './records';
export * from './shotRecord';
export * from './pelletRecord';
export * from './verdictCompare';
export { ProjectileRecordType, readSpawn, readBlast, readEnd as readProjectileEnd, writeSpawn, writeBlast, writeEnd as writeProjectileEnd, blastRecordBytes, SPAWN_BYTES, END_RECORD_BYTES } from './projectileRecord';
export { crc32 } from './crc32';
export { readFog, writeFog, fogRecordBytes, FOG_HEAD_BYTES, FOG_CHANGE_BYTES, FOG_MAX_CHANGES, type FogChanges } from './fogRecord';
export { readFogFlights, writeFogFlights, fogFlightsRecordBytes, FOG_FLIGHTS_HEAD_BYTES, FOG_FLIGHT_BYTES, FOG_FLIGHTS_MAX, type FogFlightSends } from './fogFlightRecord';
export { readFogBackfills, writeFogBackfills, fogBackfillsRecordBytes, FOG_BACKFILLS_HEAD_BYTES, FOG_BACKFILL_BYTES, FOG_BACKFILLS_MAX, type FogBackfills } from './fogBackfillRecord';
export { readFogEnds, writeFogEnds, fogEndsRecordBytes, FOG_ENDS_HEAD_BYTES, FOG_END_BYTES, FOG_ENDS_MAX, END_STRUCK_MASKED, END_VICTIMS_MASKED, type FogEndTells } from './fogEndRecord';
