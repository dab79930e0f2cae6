// The Mocha globals @web/test-runner gives test files (no @types/mocha in the workspace).
type MochaDone = (error?: unknown) => void;
type MochaFn = ((this: { timeout(ms: number): void }) => unknown) | ((done: MochaDone) => void);
declare function describe(name: string, body: () => void): void;
declare function it(name: string, body: MochaFn): void;
declare function before(body: MochaFn): void;
declare function after(body: MochaFn): void;
declare function beforeEach(body: MochaFn): void;
declare function afterEach(body: MochaFn): void;
