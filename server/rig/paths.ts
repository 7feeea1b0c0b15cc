/**
 * Where the shipped mannequin lives: its source character and the rig asset `npm run build:rig`
 * builds from it (the one copy of the shipped rig; server/rig/mannequin.ts loads it, the package
 * build copies it to dist/lib/assets/). A module of its own so the build can name the asset without
 * loading it.
 */
import { fileURLToPath } from 'node:url';

export const MANNEQUIN_PATH = fileURLToPath(new URL('../assets/mannequiny-0.3.0.glb', import.meta.url));
export const MANNEQUIN_RIG_PATH = fileURLToPath(new URL('../assets/mannequin.hrrg', import.meta.url));
