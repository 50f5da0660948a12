import * as v1 from '@debrief/mcp';
import * as v2 from '@debrief/mcp/v2';
import { connectPair } from './mcp-pair.js';
import { connectPairV2 } from './mcp-pair-v2.js';

/**
 * Each SDK major with its own entry point and its own real server and client, so one test
 * body runs against both. The server is typed loosely here: each kit's attach takes its own.
 */
export interface SdkKit {
  attach(server: any, options: v1.AttachOptions): unknown;
  createDebriefMcp(options: v1.AttachOptions): v1.DebriefMcp & { attach(server: any): unknown };
  connectPair(
    setup: (server: any) => unknown,
    serverOptions?: { instructions?: string },
  ): Promise<{ server: any; client: any; close(): Promise<void> }>;
}

export const SDK_KITS: Array<[string, SdkKit]> = [
  ['SDK 1.x', { attach: v1.attach, createDebriefMcp: v1.createDebriefMcp, connectPair }],
  [
    'SDK 2.x',
    { attach: v2.attach, createDebriefMcp: v2.createDebriefMcp, connectPair: connectPairV2 },
  ],
];
