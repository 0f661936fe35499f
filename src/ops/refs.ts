import type { MemoryHandle } from './ops.js';

/** Resolve `$ref:` names against the memories stored so far. */
export function lookupRef(handles: Map<string, MemoryHandle>) {
  return (name: string, field?: string): unknown => {
    const h = handles.get(name);
    if (!h) throw new Error(`unknown ref "${name}"`);
    return field ? (h as unknown as Record<string, unknown>)[field] : h.id;
  };
}
