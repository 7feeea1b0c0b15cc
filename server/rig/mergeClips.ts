/**
 * Puts the animation clips of clip-only glTF files (an animation pack exported on the same skeleton,
 * without a mesh, as character packs often ship their animations) onto a character file, matching
 * channels to the character's nodes by name, so the rig build sees one file with mesh, skin and
 * clips. The character's geometry and compression are kept: the output is written with the same
 * extensions the character uses (meshopt and Draco encoders attached).
 *
 * `npx tsx server/rig/mergeClips.ts <character.glb> <clips.glb>... --out <file.glb> [--only Clip,Clip]`
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Document, Node } from '@gltf-transform/core';
import { gltfWriter } from '../level/gltfWriter';


/** Nodes by name; a name two of them share maps to null (it cannot be matched). */
function nodesByName(nodes: Node[]): Map<string, Node | null> {
  const out = new Map<string, Node | null>();
  for (const n of nodes) out.set(n.getName(), out.has(n.getName()) ? null : n);
  return out;
}

/**
 * Copies every animation of `clipDocs` (or only those named in `only`) into `doc`, retargeting each
 * channel to the joint of the same name, else the one other node of that name. Throws when a
 * channel's node has no single namesake in `doc` or a clip name is already taken. Returns the names
 * of the clips added.
 */
export function copyClips(doc: Document, clipDocs: Document[], only?: readonly string[]): string[] {
  // A joint wins over another node of its name (exporters often name a mesh after its bone).
  const joints = nodesByName([...new Set(doc.getRoot().listSkins().flatMap((s) => s.listJoints()))]);
  const all = nodesByName(doc.getRoot().listNodes());
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  const taken = new Set(doc.getRoot().listAnimations().map((a) => a.getName()));
  const added: string[] = [];
  for (const src of clipDocs) {
    for (const anim of src.getRoot().listAnimations()) {
      const name = anim.getName();
      if (only && !only.includes(name)) continue;
      if (taken.has(name)) throw new Error(`clip "${name}" is already in the character (or in two clip files)`);
      const copy = doc.createAnimation(name);
      for (const ch of anim.listChannels()) {
        const from = ch.getTargetNode();
        const sampler = ch.getSampler();
        if (!from || !sampler) continue;
        const joint = joints.get(from.getName());
        const to = joint === undefined ? all.get(from.getName()) : joint;
        if (!to) {
          throw new Error(`clip "${name}" animates node "${from.getName()}", which the character ${to === null ? 'has more than once' : 'does not have'}`);
        }
        const input = sampler.getInput()!, output = sampler.getOutput()!;
        const s = doc
          .createAnimationSampler()
          .setInterpolation(sampler.getInterpolation())
          .setInput(doc.createAccessor().setType(input.getType()).setArray(input.getArray()!.slice()).setBuffer(buffer))
          .setOutput(doc.createAccessor().setType(output.getType()).setNormalized(output.getNormalized()).setArray(output.getArray()!.slice()).setBuffer(buffer));
        copy.addSampler(s).addChannel(doc.createAnimationChannel().setTargetNode(to).setTargetPath(ch.getTargetPath()!).setSampler(s));
      }
      taken.add(name);
      added.push(name);
    }
  }
  if (only) for (const n of only) if (!added.includes(n)) throw new Error(`no clip file has a clip called "${n}"`);
  return added;
}

/** Reads the character and the clip files, copies the clips, writes `outPath`. Returns the clips added. */
export async function mergeClipFiles(characterPath: string, clipPaths: readonly string[], outPath: string, only?: readonly string[]): Promise<string[]> {
  const io = await gltfWriter();
  const doc = await io.read(characterPath);
  const added = copyClips(doc, await Promise.all(clipPaths.map((p) => io.read(p))), only);
  await io.write(outPath, doc);
  return added;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' }, only: { type: 'string' } }, allowPositionals: true });
  if (positionals.length < 2 || !values.out) throw new Error('usage: npx tsx server/rig/mergeClips.ts <character.glb> <clips.glb>... --out <file.glb> [--only Clip,Clip]');
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const added = await mergeClipFiles(positionals[0], positionals.slice(1), values.out, only);
  console.log(`wrote ${values.out}: ${added.join(', ')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
