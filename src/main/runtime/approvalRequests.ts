/**
 * The bridge's approval questions (its IPC `{"type": "approval"}`, src/proxy/modes/bridgeApproval.ts)
 * turned into McpRuntime's `approval` event, and the app's answer sent back. With no listener the
 * answer is `none` at once (the bridge then asks the client, or refuses). The bridge holds the
 * deadline; an answer after it is ignored there. Only the first answer counts.
 */
import type { ChildProcess } from 'node:child_process';
import type { ApprovalQuestion } from '../../shared/approval.js';

/** The app's answer: `once` this call, `always` this tool of this server from now on (written to the config), `deny`. */
export type ApprovalAnswer = 'once' | 'always' | 'deny';

/** One tool call waiting for the user (McpRuntime's `approval` event): the bridge's question, with its deadline. */
export interface ApprovalRequest extends Omit<ApprovalQuestion, 'id' | 'timeoutMs' | 'callerKey'> {
  /** When the bridge stops waiting and denies (epoch ms). */
  deadline: number;
  /** Answers the question; later calls do nothing. */
  answer(a: ApprovalAnswer): void;
}

type Question = ApprovalQuestion;

/** The longest caller key taken from a question (the bridge takes none longer). */
const MAX_CALLER_KEY = 128;

function questionOf(m: unknown): Question | undefined {
  const msg = m as { type?: unknown; question?: Partial<Question> } | null;
  const q = msg?.question;
  if (!msg || msg.type !== 'approval' || !q || typeof q !== 'object') return undefined;
  if (typeof q.id !== 'string' || typeof q.server !== 'string' || typeof q.tool !== 'string') return undefined;
  return {
    id: q.id,
    server: q.server,
    tool: q.tool,
    ...(typeof q.client === 'string' ? { client: q.client } : {}),
    ...(typeof q.clientVersion === 'string' ? { clientVersion: q.clientVersion } : {}),
    ...(typeof q.callerKey === 'string' && q.callerKey.length <= MAX_CALLER_KEY ? { callerKey: q.callerKey } : {}),
    session: typeof q.session === 'number' ? q.session : 0,
    arguments: q.arguments && typeof q.arguments === 'object' ? q.arguments : {},
    rule: typeof q.rule === 'string' ? q.rule : '',
    timeoutMs: typeof q.timeoutMs === 'number' ? q.timeoutMs : 0,
  };
}

/** What the policy says of a tool without a call (the bridge's `approval-decision`). */
export interface ApprovalVerdict {
  answer: 'allow' | 'ask' | 'deny' | 'off';
  rule: string;
  /** The server and tool the name was read as (the bridge's name table), for McpRuntime.grantOnce. */
  server?: string;
  tool?: string;
}

/** How long the bridge may take to say what its policy answers. */
const CHECK_TIMEOUT_MS = 5000;
let checks = 0;

/** Asks the bridge what its policy answers for the tool an aggregate calls `name`; undefined: unknown or no answer. */
export function checkApproval(
  child: Pick<ChildProcess, 'on' | 'off' | 'send' | 'connected'>,
  name: string,
): Promise<ApprovalVerdict | undefined> {
  const id = `check-${++checks}`;
  return new Promise((resolve) => {
    const done = (v: ApprovalVerdict | undefined) => {
      clearTimeout(timer);
      child.off('message', take);
      resolve(v);
    };
    const take = (m: unknown) => {
      const msg = m as {
        type?: unknown;
        id?: unknown;
        answer?: unknown;
        rule?: unknown;
        server?: unknown;
        tool?: unknown;
      } | null;
      if (msg?.type !== 'approval-decision' || msg.id !== id) return;
      if (!['allow', 'ask', 'deny', 'off'].includes(msg.answer as string)) return done(undefined);
      const v: ApprovalVerdict = { answer: msg.answer as ApprovalVerdict['answer'], rule: String(msg.rule ?? '') };
      if (typeof msg.server === 'string' && typeof msg.tool === 'string')
        Object.assign(v, { server: msg.server, tool: msg.tool });
      done(v);
    };
    const timer = setTimeout(() => done(undefined), CHECK_TIMEOUT_MS);
    child.on('message', take);
    if (!child.connected) return done(undefined);
    child.send?.({ type: 'approval-check', id, name }, () => {});
  });
}

/** What a grant is matched against: the question's caller key, server, tool and arguments (callGrants.ts). */
export type GrantedCall = Pick<ApprovalQuestion, 'callerKey' | 'server' | 'tool' | 'arguments'>;

/**
 * Answers `child`'s approval questions through `ask` (undefined: no listener, answered `none`);
 * `granted(call)` true: the user already allowed this very call in an agent's own prompt
 * (McpRuntime.grantOnce), answered `once` without asking again.
 */
export function answerApprovals(
  child: Pick<ChildProcess, 'on' | 'send' | 'connected'>,
  ask: () => ((r: ApprovalRequest) => void) | undefined,
  granted: (call: GrantedCall) => boolean = () => false,
): void {
  child.on('message', (m: unknown) => {
    const q = questionOf(m);
    if (!q) return;
    let answered = false;
    const reply = (answer: ApprovalAnswer | 'none') => {
      if (answered) return;
      answered = true;
      if (child.connected) child.send?.({ type: 'approval-answer', id: q.id, answer }, () => {});
    };
    if (granted(q)) return reply('once');
    const listener = ask();
    if (!listener) return reply('none');
    const { id: _id, timeoutMs, callerKey: _key, ...shown } = q;
    listener({ ...shown, deadline: Date.now() + timeoutMs, answer: (a) => reply(a) });
  });
}
