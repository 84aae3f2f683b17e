import { z } from 'zod';
import { CATEGORIES, LAYERS, STATUSES } from './vocabulary.ts';

export { CATEGORIES, LAYERS, STATUSES };

export const Layer = z.enum(LAYERS);
export type Layer = z.infer<typeof Layer>;

export type KnownCategory = (typeof CATEGORIES)[number];
export const Category = z
  .string()
  .regex(/^[a-z][a-z0-9_]{1,31}$/, 'category must be lower_snake_case, 2–32 characters');

/** `memory_type` takes a layer or one of the categories that map to a layer. */
export const MEMORY_TYPES = [...LAYERS, ...CATEGORIES.filter((c) => c !== 'turn' && c !== 'note')] as const;
export const MemoryType = z.enum(MEMORY_TYPES, {
  error: `memory_type must be one of: ${MEMORY_TYPES.join(', ')}`,
});
export type MemoryType = z.infer<typeof MemoryType>;

export const MemoryStatus = z.enum(STATUSES);
export type MemoryStatus = z.infer<typeof MemoryStatus>;

export const SOURCE_KINDS = ['api', 'mcp', 'consolidation', 'import'] as const;
export const SourceKind = z.enum(SOURCE_KINDS);

const DEFAULT_CATEGORY: Record<Layer, string> = { working: 'note', episodic: 'event', semantic: 'fact' };

/**
 * Resolves `memory_type` (+ optional explicit category) into a layer and a category:
 * a category maps to the semantic layer, except `event` (episodic); no type → episodic.
 */
export function resolveMemoryType(
  memoryType: MemoryType | undefined,
  category: string | undefined,
): { layer: Layer; category: string } {
  if (memoryType === undefined) return { layer: 'episodic', category: category ?? DEFAULT_CATEGORY.episodic };
  if ((LAYERS as readonly string[]).includes(memoryType)) {
    const layer = memoryType as Layer;
    return { layer, category: category ?? DEFAULT_CATEGORY[layer] };
  }
  return { layer: memoryType === 'event' ? 'episodic' : 'semantic', category: category ?? memoryType };
}

/** Expands a list of layers/categories (as `memory_types` on search) into layer and category filters. */
export function splitMemoryTypes(types: readonly MemoryType[] | undefined): {
  layers?: Layer[];
  categories?: string[];
} {
  if (!types || types.length === 0) return {};
  const layers = types.filter((t): t is Layer => (LAYERS as readonly string[]).includes(t));
  const categories = types.filter((t) => !(LAYERS as readonly string[]).includes(t));
  const out: { layers?: Layer[]; categories?: string[] } = {};
  if (layers.length > 0) out.layers = layers;
  if (categories.length > 0) out.categories = categories;
  return out;
}
