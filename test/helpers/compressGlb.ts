/**
 * Test helper: writes quantized, meshopt-compressed and Draco-compressed copies of a shipped GLB with
 * the same tools gltfpack and the glTF Transform CLI use (@gltf-transform/functions `quantize`,
 * `meshopt`, `draco` with the meshoptimizer and draco3dgltf encoders), so the loader is tested on
 * files made exactly the way levels and characters ship.
 */
import { join } from 'node:path';
import { draco, meshopt, quantize } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { gltfWriter } from '../../server/level/gltfWriter';

export type Compression = 'quantize' | 'meshopt' | 'draco';

/** Position quantization of every variant, bits (the glTF Transform and gltfpack default). */
export const POSITION_BITS = 14;

/** Writes `src` compressed with `kind` into `dir` and returns the new file's path. */
export async function compressedCopy(src: string, kind: Compression, dir: string): Promise<string> {
  // A writer with the encoders attached, apart from the server's reader.
  const io = await gltfWriter();
  const doc = await io.read(src);
  doc.setLogger({ debug() {}, info() {}, warn() {}, error: console.error } as never);
  if (kind === 'quantize') await doc.transform(quantize({ quantizePosition: POSITION_BITS }));
  else if (kind === 'meshopt') await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'medium', quantizePosition: POSITION_BITS }));
  else await doc.transform(draco({ quantizePosition: POSITION_BITS }));
  const out = join(dir, `${kind}-${src.split('/').pop()}`);
  await io.write(out, doc);
  return out;
}
