// `express4` is an npm alias of Express 4, installed next to Express 5 for these tests. The
// Express 5 types cover the little the tests use of it.
declare module 'express4' {
  import express from 'express';
  export default express;
}
