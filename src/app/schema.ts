import { z } from 'zod';
import { scenarioSchema } from '../scenario/schema.js';
import { targetSchema } from '../targets/schema.js';

/** The JSON Schema of the scenario format, or of target declarations, for editors. */
export function jsonSchemaFor(kind: 'scenario' | 'target'): unknown {
  return z.toJSONSchema(kind === 'scenario' ? scenarioSchema : targetSchema, { io: 'input', unrepresentable: 'any' });
}
