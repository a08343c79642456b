// mingo publishes its sub-modules through package.json "exports", which the workspace's
// `moduleResolution: node` cannot see; these declarations point the type checker at the
// declaration files shipped in the package while Node resolves the real modules at runtime.
declare module 'mingo/core' {
  export * from 'mingo/types/core';
}
declare module 'mingo/operators/accumulator' {
  export * from 'mingo/types/operators/accumulator';
}
declare module 'mingo/operators/expression' {
  export * from 'mingo/types/operators/expression';
}
declare module 'mingo/operators/pipeline' {
  export * from 'mingo/types/operators/pipeline';
}
declare module 'mingo/operators/projection' {
  export * from 'mingo/types/operators/projection';
}
declare module 'mingo/operators/query' {
  export * from 'mingo/types/operators/query';
}
declare module 'mingo/operators/window' {
  export * from 'mingo/types/operators/window';
}
declare module 'mingo/lazy' {
  export * from 'mingo/types/lazy';
}
