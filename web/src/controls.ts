/**
 * The page's movement and trigger keys: what is held, and a trigger pull not yet fired. Weapon keys
 * (R, digits) are handled by the page itself (main.ts).
 */

export interface Controls {
  forward: boolean; back: boolean; left: boolean; right: boolean; jump: boolean;
  /** Trigger held (automatic fire at the weapon's rate). */
  fire: boolean;
  /** A trigger pull not yet fired: a click shorter than an update still fires once. */
  pulled: boolean;
}

/** Keys that pull the trigger (the mouse button does too). */
const FIRE_KEYS = new Set(['KeyF']);

/** Updates `c` for a key going down or up; true when the key is one of these. */
export function keyDown(c: Controls, code: string, down: boolean): boolean {
  switch (code) {
    case 'KeyW': case 'ArrowUp': c.forward = down; return true;
    case 'KeyS': case 'ArrowDown': c.back = down; return true;
    case 'KeyA': case 'ArrowLeft': c.left = down; return true;
    case 'KeyD': case 'ArrowRight': c.right = down; return true;
    case 'Space': c.jump = down; return true;
    default:
      if (FIRE_KEYS.has(code)) {
        if (down && !c.fire) c.pulled = true;
        c.fire = down;
        return true;
      }
      return false;
  }
}
