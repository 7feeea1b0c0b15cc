/**
 * Test helper: writes quantized, meshopt-compressed and Draco-compressed copies of a shipped GLB with
 * the same tools gltfpack and the glTF Transform CLI use (@gltf-transform/functions `quantize`,
 * `meshopt`, `draco` with the meshoptimizer and draco3dgltf encoders), so the loader is tested on
 * files made exactly the way levels and characters ship.
 */
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { draco, meshopt, quantize } from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import draco3d from 'draco3dgltf';

export type Compression = 'quantize' | 'meshopt' | 'draco';

/** Position quantization of every variant, bits (the glTF Transform and gltfpack default). */
export const POSITION_BITS = 14;

let writer: Promise<NodeIO> | undefined;

/** Writes `src` compressed with `kind` into `dir` and returns the new file's path. */
export async function compressedCopy(src: string, kind: Compression, dir: string): Promise<string> {
  // A writer of its own (encoders attached), apart from the server's reader.
  writer ??= (async () => {
    await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
    return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'meshopt.encoder': MeshoptEncoder,
      'meshopt.decoder': MeshoptDecoder,
      'draco3d.encoder': await draco3d.createEncoderModule(),
      'draco3d.decoder': await draco3d.createDecoderModule(),
    });
  })();
  const io = await writer;
  const doc = await io.read(src);
  doc.setLogger({ debug() {}, info() {}, warn() {}, error: console.error } as never);
  if (kind === 'quantize') await doc.transform(quantize({ quantizePosition: POSITION_BITS }));
  else if (kind === 'meshopt') await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'medium', quantizePosition: POSITION_BITS }));
  else await doc.transform(draco({ quantizePosition: POSITION_BITS }));
  const out = join(dir, `${kind}-${src.split('/').pop()}`);
  await io.write(out, doc);
  return out;
}
