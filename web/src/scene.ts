/**
 * What the page draws, with three.js: the level (the world's own triangles, so what is seen is what
 * shots are judged against), every player as its rig's hitbox hulls placed by the posed bones
 * (the same posing the server rewinds), bullet holes, tracers, and debug hitbox sets (the ones the
 * client saw when it fired beside the ones the server rewound to).
 */
import * as THREE from 'three';
import { BONE_STRIDE, HitZone, type Rig, type World } from '../../shared/index';

/** The world's triangle corners, 9 numbers per triangle (any order). */
export function worldTriangles(world: World): Float64Array | Float32Array {
  // Newer world layouts weld vertices and expose triangleCorners(); older ones keep corners in the tree.
  const w = world as World & { triangleCorners?: () => Float64Array };
  if (typeof w.triangleCorners === 'function') return w.triangleCorners();
  return world.arrays().tris as unknown as Float64Array;
}

export function levelMesh(world: World): THREE.Mesh {
  const corners = worldTriangles(world);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(Float32Array.from(corners), 3));
  geometry.computeVertexNormals();
  // Floors light, walls darker: colour by the face's slope.
  const n = geometry.getAttribute('normal');
  const colors = new Float32Array(n.count * 3);
  for (let i = 0; i < n.count; i++) {
    const up = Math.abs(n.getY(i));
    const c = 0.45 + 0.4 * up;
    colors[i * 3] = c * 0.95; colors[i * 3 + 1] = c * 0.93; colors[i * 3 + 2] = c * 0.88;
  }
  geometry.setAttribute('color', new THREE.BufferAttribute(colors, 3));
  const mesh = new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ vertexColors: true, side: THREE.DoubleSide }));
  mesh.name = 'level';
  return mesh;
}

/** One geometry per hitbox, in its bone's local frame. */
export function hitboxGeometries(rig: Rig): THREE.BufferGeometry[] {
  const out: THREE.BufferGeometry[] = [];
  for (let h = 0; h < rig.hitboxCount; h++) {
    const t0 = rig.triStart[h]!, t1 = rig.triStart[h + 1]!;
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(Float32Array.from(rig.triangles.subarray(t0 * 9, t1 * 9)), 3));
    g.computeVertexNormals();
    out.push(g);
  }
  return out;
}

const ZONE_TINT: Record<number, number> = {
  [HitZone.HEAD]: 0xffd0a0, [HitZone.NECK]: 0xf0c090,
};

/** A player as a set of hitbox meshes; `setBones` places them from posed bones (BONE_STRIDE per hitbox). */
export class HitboxFigure {
  readonly group = new THREE.Group();
  private readonly meshes: THREE.Mesh[] = [];

  constructor(rig: Rig, geometries: THREE.BufferGeometry[], color: number, opts: { wireframe?: boolean; opacity?: number } = {}) {
    for (let h = 0; h < rig.hitboxCount; h++) {
      const tint = opts.wireframe ? color : (ZONE_TINT[rig.hitboxZone[h]!] ?? color);
      const material = opts.wireframe
        ? new THREE.MeshBasicMaterial({ color: tint, wireframe: true, transparent: true, opacity: opts.opacity ?? 1, depthTest: false })
        : new THREE.MeshLambertMaterial({ color: tint });
      const m = new THREE.Mesh(geometries[h]!, material);
      m.renderOrder = opts.wireframe ? 10 : 0;
      this.meshes.push(m);
      this.group.add(m);
    }
  }

  setBones(bones: Float64Array): void {
    for (let h = 0; h < this.meshes.length; h++) {
      const o = h * BONE_STRIDE;
      const m = this.meshes[h]!;
      m.position.set(bones[o]!, bones[o + 1]!, bones[o + 2]!);
      m.quaternion.set(bones[o + 3]!, bones[o + 4]!, bones[o + 5]!, bones[o + 6]!);
    }
  }

  setColor(color: number): void {
    for (const m of this.meshes) ((m.material as THREE.MeshBasicMaterial).color).setHex(color);
  }

  /** Highlights one hitbox (the one hit), or none with -1. */
  highlight(hitbox: number, color: number): void {
    if (hitbox >= 0 && hitbox < this.meshes.length) ((this.meshes[hitbox]!.material as THREE.MeshBasicMaterial).color).setHex(color);
  }

  dispose(): void {
    for (const m of this.meshes) (m.material as THREE.Material).dispose();
  }
}

/** A small dark quad on a surface, facing along its normal. */
export function bulletHole(x: number, y: number, z: number, nx: number, ny: number, nz: number, color = 0x111111): THREE.Mesh {
  const m = new THREE.Mesh(new THREE.CircleGeometry(0.05, 10), new THREE.MeshBasicMaterial({ color, side: THREE.DoubleSide, polygonOffset: true, polygonOffsetFactor: -4 }));
  m.position.set(x + nx * 0.005, y + ny * 0.005, z + nz * 0.005);
  m.lookAt(x + nx, y + ny, z + nz);
  return m;
}

/** A line for a shot's segment. */
export function segmentLine(sx: number, sy: number, sz: number, ex: number, ey: number, ez: number, color: number): THREE.Line {
  const g = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(sx, sy, sz), new THREE.Vector3(ex, ey, ez)]);
  return new THREE.Line(g, new THREE.LineBasicMaterial({ color, depthTest: false, transparent: true }));
}
