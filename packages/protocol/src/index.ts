export * from './console.schema.js';
export * from './errors.js';
export * from './issues.js';
export * from './keys.js';
export * from './outcomes.js';
export * from './project.schema.js';
export * from './query.schema.js';
export * from './report.schema.js';
