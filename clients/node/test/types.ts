// Compile-only: the desktop flow written against index.d.ts, checked with
// `tsc --noEmit --strict` by scripts/test. A type that drifts from what the
// flow needs fails here.

import {
  HostClient,
  SidecarClient,
  RpcError,
  defaultSocketPath,
  readControlToken,
  MAX_LINE,
  type Chain,
  type ContinuityItem,
  type Resolved,
  type RefusalReason,
} from '../index.js';

export async function desktopFlow(root: string, file: string): Promise<string[]> {
  const socketPath: string = defaultSocketPath(process.env);
  const controlToken: string = await readControlToken(socketPath);
  const host = await HostClient.connect({ socketPath, controlToken });
  await host.registerProject(root);
  const bound = await host.bindSession('s1', root);
  const base: Chain = bound.chain;
  const sidecar = await SidecarClient.connect({ socketPath, sessionId: bound.session_id, token: bound.token, baseChain: base });
  const prompt = await host.beginPrompt('s1');
  if (prompt.rebuild) {
    sidecar.baseChain = prompt.chain;
  }
  // Context only: shown to the model beside the chain, labelled.
  const continuity: string[] = [...bound.continuity, ...prompt.continuity].map(
    (item: ContinuityItem) => `${item.label} (${item.kind}): ${item.text} ${item.sha256}`,
  );
  const first: Resolved = await sidecar.resolve(file);
  const again: Resolved = await sidecar.resolve(file);
  const cache: 'hit' | 'miss' = again.cache;
  const fallback: string | undefined = first.fallback?.reason;
  const current = await host.readProjectAgentsMd(root);
  const written = await host.writeProjectAgentsMd(root, current.content + '\nnew rule\n', current.sha256);
  try {
    await host.writeProjectAgentsMd(root, 'lost edit', current.sha256);
  } catch (e) {
    if (e instanceof RpcError) {
      const reason: RefusalReason = e.reason;
      const code: number = e.code;
      void [reason, code];
    }
  }
  const labels: string[] = first.chain.sources.map((s) => `${s.scope}:${s.label}:${s.cut_at ?? 'whole'}`);
  await host.endSession('s1');
  sidecar.close();
  host.close();
  return [...labels, ...continuity, cache, fallback ?? 'none', written.sha256, String(first.duration_ms), String(MAX_LINE)];
}
