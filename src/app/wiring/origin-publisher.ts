import type { GitWorkspace } from '../../adapters/git/git-workspace.js';
import { BatchRefPublisher } from '../../adapters/git/ref-publisher.js';
import { UsageError } from '../../core/errors.js';
import type { RefPublisher } from '../../ports/ref-publisher.js';

/**
 * A run without a GitHub token: branches go to `origin` through the same batched publisher, with
 * git's own credentials (leases held for this process only).
 */
export function originPublisher(workspace: GitWorkspace): Pick<RefPublisher, 'publish'> {
  let publisher: Promise<BatchRefPublisher> | undefined;
  return {
    publish: async (branch, sha) => {
      publisher ??= workspace.remoteUrl('origin').then((url) => {
        if (url === undefined)
          throw new UsageError('The repository has no origin remote to push to.');
        return new BatchRefPublisher({ cwd: workspace.dir, remoteUrl: url });
      });
      return (await publisher).publish(branch, sha);
    },
  };
}
