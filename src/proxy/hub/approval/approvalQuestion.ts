/**
 * What the runtime asks whoever can answer for the user (the app, over the bridge's IPC
 * channel: modes/bridgeApproval.ts; the question is the contract in src/shared/approval.ts), and
 * the answers. A leaf of types and names.
 */

export type { ApprovalQuestion } from '../../../shared/approval.js';
import type { ApprovalQuestion } from '../../../shared/approval.js';

/**
 * `once`: this call; `always`: this tool of this server from now on; `none`: nobody answers
 * here; `timeout`: nobody answered in time (a deny).
 */
export type ApprovalReply = 'once' | 'always' | 'deny' | 'none' | 'timeout';

/** Asks the user; resolves with their answer, `timeout` at the deadline, `none` when nobody can answer. */
export type AskUser = (q: ApprovalQuestion) => Promise<ApprovalReply>;
