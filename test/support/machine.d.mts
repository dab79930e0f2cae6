export declare const chromiumPath: () => string;
export declare const CHROMIUM_ARGS: string[];
export declare function freePort(): Promise<number>;
export declare const foreignKeyArgs: (orgId: string) => string[];
