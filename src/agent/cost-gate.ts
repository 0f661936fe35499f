import { MemevalError } from '../util/errors.js';

/** The model id that names memeval's own loopback scripted model: free, so never gated. */
export const SCRIPTED_MODEL = 'scripted';

export interface GateFlags {
  agentTurn?: boolean;
  iUnderstandModelCost?: boolean;
  agent?: string;
  model?: string;
}

export type GateDecision =
  | { layer: 'deterministic' }
  | { layer: 'real-model'; allowed: true; scripted: boolean }
  | { layer: 'real-model'; allowed: false; reason: string };

/**
 * Decide whether model-shaped work may start. Anything that names an agent or a model, or
 * asks for agent turns, is the real-model layer; a real model runs only with both
 * --agent-turn and --i-understand-model-cost. memeval's scripted model costs nothing.
 */
export function costGate(f: GateFlags): GateDecision {
  const wantsModel = Boolean(f.agentTurn || f.agent || f.model || f.iUnderstandModelCost);
  if (!wantsModel) return { layer: 'deterministic' };
  if (f.model === SCRIPTED_MODEL) return { layer: 'real-model', allowed: true, scripted: true };
  const missing = [!f.agentTurn && '--agent-turn', !f.iUnderstandModelCost && '--i-understand-model-cost'].filter(
    Boolean,
  );
  if (missing.length)
    return {
      layer: 'real-model',
      allowed: false,
      reason:
        `real model turns cost money and need both --agent-turn and --i-understand-model-cost (missing: ${missing.join(', ')}); ` +
        `use --model ${SCRIPTED_MODEL} for memeval's free scripted model`,
    };
  return { layer: 'real-model', allowed: true, scripted: false };
}

/** Raised by anything model-shaped that is reached without a gate decision allowing it. */
export class CostGateError extends MemevalError {
  constructor(message: string) {
    super('COST_GATE', message);
  }
}

export function assertAllowed(d: GateDecision): asserts d is Extract<GateDecision, { allowed: true }> {
  if (d.layer !== 'real-model' || !d.allowed)
    throw new CostGateError('model-shaped work reached without passing the cost gate');
}
