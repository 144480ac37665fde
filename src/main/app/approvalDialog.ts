/**
 * The app's approval dialog: each McpRuntime `approval` request shown as a message box naming
 * the agent (the calling client), the server, the tool and its arguments, with Allow once /
 * Always allow / Deny; closed at the request's deadline (the bridge denies then). Electron's
 * `dialog` is passed in through {@link DialogLike} (src/main/electron/main.ts).
 */
import type { ApprovalAnswer, ApprovalRequest } from '../runtime/approvalRequests.js';

/** The part of Electron's `MessageBoxOptions` used here. */
export interface ApprovalBoxOptions {
  type: 'question';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink: true;
  signal: AbortSignal;
}

/** Electron's `dialog.showMessageBox`, bound to the app's window when it has one. */
export interface DialogLike {
  showMessageBox(options: ApprovalBoxOptions): Promise<{ response: number }>;
}

export const APPROVAL_BUTTONS = ['Allow once', 'Always allow', 'Deny'] as const;
const ANSWERS: readonly ApprovalAnswer[] = ['once', 'always', 'deny'];
/** The arguments shown, at most this many characters of their JSON. */
const MAX_ARGUMENTS_SHOWN = 4000;

/** The message box for `r`. */
export function approvalBox(r: ApprovalRequest, signal: AbortSignal): ApprovalBoxOptions {
  let args = JSON.stringify(r.arguments, null, 2) ?? '{}';
  if (args.length > MAX_ARGUMENTS_SHOWN) args = `${args.slice(0, MAX_ARGUMENTS_SHOWN)}\n…`;
  const agent = r.client === undefined ? 'An agent' : r.clientVersion ? `${r.client} (${r.clientVersion})` : r.client;
  return {
    type: 'question',
    title: 'Allow this tool?',
    message: `${agent} wants to run the tool "${r.tool}" of server "${r.server}".`,
    detail: `Arguments:\n${args}\n\nAsked because of ${r.rule}.`,
    buttons: [...APPROVAL_BUTTONS],
    defaultId: 2,
    cancelId: 2,
    noLink: true,
    signal,
  };
}

/** Answers every approval request of `runtime` with `dialog`; returns the unsubscribe function. */
export function askWithDialog(
  runtime: { on(event: 'approval', cb: (r: ApprovalRequest) => void): () => void },
  dialog: DialogLike,
): () => void {
  return runtime.on('approval', (r) => {
    const closer = new AbortController();
    const timer = setTimeout(() => closer.abort(), Math.max(0, r.deadline - Date.now()));
    dialog.showMessageBox(approvalBox(r, closer.signal)).then(
      ({ response }) => {
        clearTimeout(timer);
        r.answer(closer.signal.aborted ? 'deny' : (ANSWERS[response] ?? 'deny'));
      },
      () => {
        clearTimeout(timer);
        r.answer('deny');
      },
    );
  });
}
