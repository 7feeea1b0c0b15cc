/**
 * A glTF reader and writer with every extension registered and both codecs' encoders and decoders
 * attached (meshoptimizer, draco3dgltf): for tools that write compressed files. The loaders read
 * through their own reader (no encoders).
 */
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import draco3d from 'draco3dgltf';

let ioPromise: Promise<NodeIO> | undefined;

export function gltfWriter(): Promise<NodeIO> {
  ioPromise ??= (async () => {
    await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
    return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'meshopt.encoder': MeshoptEncoder,
      'meshopt.decoder': MeshoptDecoder,
      'draco3d.encoder': await draco3d.createEncoderModule(),
      'draco3d.decoder': await draco3d.createDecoderModule(),
    });
  })();
  return ioPromise;
}
