// The quality reference (server/rig/skinning.ts: glTF node evaluation, animation sampling,
// linear-blend skinning) checked against an independent implementation: three.js (GLTFLoader,
// AnimationMixer, SkinnedMesh.getVertexPosition) on the same asset, in every clip. If the reference
// were wrong, the rig and the reference could agree with each other and the quality test pass.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MANNEQUIN_PATH } from '../server/rig/buildRig';
import {
  globalMatrices, jointMatrices, sampleLocalTRS, skinPositions,
} from '../server/rig/skinning';
import { loadSkinnedCharacter } from '../server/rig/character';

describe('skinned mannequin reference agrees with three.js', () => {
  it('skinned vertex positions match in sampled frames of every clip', async () => {
    const ch = await loadSkinnedCharacter(MANNEQUIN_PATH);
    const buf = readFileSync(MANNEQUIN_PATH);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const gltf = await new GLTFLoader().parseAsync(ab, '');
    const meshes: THREE.SkinnedMesh[] = [];
    gltf.scene.traverse((o) => { if ((o as THREE.SkinnedMesh).isSkinnedMesh) meshes.push(o as THREE.SkinnedMesh); });
    expect(meshes.length).toBeGreaterThan(0);
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const local = new Float64Array(ch.nodeNames.length * 10);
    const globals = new Float64Array(ch.nodeNames.length * 16);
    const jm = new Float64Array(ch.jointNames.length * 16);
    const skinned = new Float64Array(ch.positions.length);
    const v = new THREE.Vector3();
    let compared = 0, worst = 0;
    for (const clip of ch.clips) {
      const anim = gltf.animations.find((a) => a.name === clip.name)!;
      const action = mixer.clipAction(anim);
      mixer.stopAllAction();
      action.reset().play();
      for (const u of [0.1, 0.45, 0.8]) {
        const time = u * clip.duration;
        mixer.setTime(time);
        gltf.scene.updateMatrixWorld(true);
        sampleLocalTRS(local, ch, clip, time);
        globalMatrices(globals, ch, local);
        jointMatrices(jm, ch, globals);
        skinPositions(skinned, ch, jm);
        // Vertices of all primitives are merged in order in the reference; three.js splits them per primitive.
        let base = 0;
        for (const m of meshes) {
          const n = m.geometry.getAttribute('position').count;
          for (let i = 0; i < n; i += 7) {
            m.getVertexPosition(i, v);
            v.applyMatrix4(m.matrixWorld);
            const o = (base + i) * 3;
            const d = Math.hypot(v.x - skinned[o], v.y - skinned[o + 1], v.z - skinned[o + 2]);
            worst = Math.max(worst, d);
            compared++;
          }
          base += n;
        }
      }
    }
    console.log(`three.js vs reference: ${compared} vertices, worst ${(worst * 1000).toFixed(3)} mm`);
    expect(compared).toBeGreaterThan(10000);
    expect(worst).toBeLessThan(1e-4); // measured 0.001 mm (three.js works in float32)
  });
});
