/**
 * The one glTF reader of the server: a NodeIO with every extension glTF Transform implements
 * registered (KHR_mesh_quantization, EXT_meshopt_compression, KHR_draco_mesh_compression, texture
 * and material extensions, ...) and the meshopt and Draco decoders attached, so levels and characters
 * exported by gltfpack, Blender or the glTF Transform CLI load as they ship. Quantized attributes are
 * dequantized by the accessors (normalized flag) and the node transforms the quantizer wrote; both the
 * level importer and the rig build read geometry through node matrices, so nothing more is needed.
 *
 * A file that requires an extension no reader here implements is refused up front with an error
 * that names the extension and says the file itself parsed, instead of a generic "not a valid file".
 */
import { NodeIO, type Document, type GLTF } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer';
import draco3d from 'draco3dgltf';

/** Names of the extensions the reader implements (what `extensionsRequired` may list). */
export const SUPPORTED_GLTF_EXTENSIONS: readonly string[] = Object.freeze(ALL_EXTENSIONS.map((e) => e.EXTENSION_NAME).sort());

let ioPromise: Promise<NodeIO> | undefined;

/** The shared reader; the decoders (WebAssembly) are instantiated once per process, on first use. */
export function gltfIO(): Promise<NodeIO> {
  ioPromise ??= (async () => {
    await MeshoptDecoder.ready;
    const dracoDecoder = await draco3d.createDecoderModule();
    return new NodeIO()
      .registerExtensions(ALL_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'draco3d.decoder': dracoDecoder });
  })();
  return ioPromise;
}

/** Raised when a file requires extensions this reader does not implement. */
export class UnsupportedGltfExtensionError extends Error {
  constructor(
    readonly path: string,
    readonly extensions: readonly string[],
  ) {
    super(
      `"${path}" requires the glTF extension${extensions.length > 1 ? 's' : ''} ${extensions.map((e) => `"${e}"`).join(', ')}, ` +
        `which this server cannot decode. The file itself is readable glTF; re-export it without ` +
        `${extensions.length > 1 ? 'those extensions' : 'that extension'} (supported: ${SUPPORTED_GLTF_EXTENSIONS.join(', ')}).`,
    );
    this.name = 'UnsupportedGltfExtensionError';
  }
}

/**
 * Reads a .glb/.gltf file into a Document with every supported extension decoded. `what` names the
 * file's role in errors ("level", "character"). Throws UnsupportedGltfExtensionError for a required
 * extension no reader implements, and an Error saying what to check when the file cannot be parsed.
 */
export async function readGltf(path: string, what: string): Promise<Document> {
  return (await readGltfWithJson(path, what)).doc;
}

/** readGltf, plus the file's parsed JSON (for extensions glTF Transform does not model, such as VRM's humanoid table). */
export async function readGltfWithJson(path: string, what: string): Promise<{ doc: Document; json: GLTF.IGLTF }> {
  const io = await gltfIO();
  let jsonDoc;
  try {
    jsonDoc = await io.readAsJSON(path);
  } catch (err) {
    throw new Error(
      `could not read ${what} "${path}": ${(err as Error).message}. Check the path and that it is a valid .glb/.gltf file.`,
    );
  }
  const required = jsonDoc.json.extensionsRequired ?? [];
  const missing = required.filter((name) => !SUPPORTED_GLTF_EXTENSIONS.includes(name));
  if (missing.length > 0) throw new UnsupportedGltfExtensionError(path, missing);
  // readJSON consumes the JSON document; keep a copy of the parsed JSON for the caller.
  const json = structuredClone(jsonDoc.json);
  try {
    return { doc: await io.readJSON(jsonDoc), json };
  } catch (err) {
    throw new Error(`could not decode ${what} "${path}": ${(err as Error).message}. The file parsed as glTF but its content is inconsistent; re-export it.`);
  }
}
