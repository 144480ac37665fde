/**
 * The bridge asks its parent app for the user's approval over the IPC channel: it sends
 * `{"type": "approval", question}` and waits for `{"type": "approval-answer", id, answer}`
 * (`once` | `always` | `deny` | `none`: the app has nobody to ask). No answer within the
 * question's `timeoutMs`, or the channel gone, is a deny. McpRuntime answers
 * (src/main/runtime/mcpRuntime.ts, the `approval` event); `always` is also written to the config
 * file (`onAlways`).
 */
import type { ApprovalQuestion, ApprovalReply, AskUser } from '../hub/approval/approvalQuestion.js';

/** What the app may answer. */
const REPLIES: readonly ApprovalReply[] = ['once', 'always', 'deny', 'none'];

interface IpcProcess {
  send?: (m: unknown) => boolean;
  connected?: boolean;
  on(event: 'message', fn: (m: unknown) => void): unknown;
  on(event: 'disconnect', fn: () => void): unknown;
}

/** An `AskUser` over `proc`'s IPC channel; undefined when the process has none (no app above it). */
export function ipcAskUser(
  proc: IpcProcess,
  onAlways?: (serverId: string, tool: string) => Promise<void>,
  check?: (name: string) => Promise<{ answer: string; rule: string } | undefined>,
): AskUser | undefined {
  if (typeof proc.send !== 'function') return undefined;
  const waiting = new Map<string, (r: ApprovalReply) => void>();
  proc.on('message', (m) => {
    const msg = m as { type?: unknown; id?: unknown; answer?: unknown; name?: unknown } | null;
    // The app asks what the policy says of a tool, by its aggregate name (AcpEngine's permission prompts).
    if (msg?.type === 'approval-check' && typeof msg.id === 'string' && typeof msg.name === 'string' && check) {
      const id = msg.id;
      void check(msg.name).then(
        (d) =>
          proc.connected !== false && proc.send!({ type: 'approval-decision', id, ...(d ?? { answer: 'unknown' }) }),
        () => proc.connected !== false && proc.send!({ type: 'approval-decision', id, answer: 'unknown' }),
      );
      return;
    }
    if (!msg || msg.type !== 'approval-answer' || typeof msg.id !== 'string') return;
    const answer = REPLIES.includes(msg.answer as ApprovalReply) ? (msg.answer as ApprovalReply) : 'deny';
    waiting.get(msg.id)?.(answer);
  });
  proc.on('disconnect', () => {
    for (const settle of [...waiting.values()]) settle('deny');
  });
  return (q: ApprovalQuestion) =>
    new Promise<ApprovalReply>((resolve) => {
      const timer = setTimeout(() => settle('timeout'), q.timeoutMs);
      const settle = (r: ApprovalReply) => {
        clearTimeout(timer);
        waiting.delete(q.id);
        if (r === 'always') void onAlways?.(q.server, q.tool);
        resolve(r);
      };
      waiting.set(q.id, settle);
      try {
        if (proc.connected === false) settle('deny');
        else proc.send!({ type: 'approval', question: q });
      } catch {
        settle('deny');
      }
    });
}
