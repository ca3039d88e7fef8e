import type { Confidence } from '../../violations/violation.js';

export const confidenceOf = (suspected: boolean): Confidence => (suspected ? 'suspected' : 'confirmed');
