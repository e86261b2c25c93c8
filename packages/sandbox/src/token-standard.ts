/**
 * The Canton Token Standard's API packages (hyperledger-labs/splice `token-standard/splice-api-token-*-v1`), uploaded
 * and vetted with their real package ids (splice `daml/dars.lock`, in `@quill/canton/token`) as on every Canton
 * Network validator's participant, so that commands and filters naming their interfaces resolve as there.
 */
import { TOKEN_STANDARD_PACKAGES } from '@quill/canton/token';
import type { SandboxState } from './state/index.ts';

export function uploadTokenStandardApis(state: SandboxState): void {
  for (const p of TOKEN_STANDARD_PACKAGES) {
    const pkg = state.packages.upload(p.name, '1.0.0', true, p.packageId);
    for (const entity of p.interfaces) state.packages.addInterface(p.name, `${p.module}:${entity}`);
    for (const participant of [state.participantId, ...state.otherParticipants]) {
      for (const s of state.synchronizers)
        state.packages.vet(participant, s.id, { packageId: pkg.packageId });
    }
  }
}
