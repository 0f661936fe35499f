import type { MemoryHandle } from './ops.js';

/**
 * Resolve `$ref:` names against the memories stored so far. Strict (the replay driver) throws on
 * a memory never stored; the scripted model passes undefined on, as a model would.
 */
export function lookupRef(handles: Map<string, MemoryHandle>, strict = true) {
  return (name: string, field?: string): unknown => {
    const h = handles.get(name);
    if (!h) {
      if (strict) throw new Error(`unknown ref "${name}"`);
      return undefined;
    }
    return field ? (h as unknown as Record<string, unknown>)[field] : h.id;
  };
}
