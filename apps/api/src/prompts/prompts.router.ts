import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { PromptListInput, PromptVersionsInput } from '../rpc/rpc.dto';
import type { PromptReadsService } from './prompt-reads.service';

export function promptRouters(prompts: PromptReadsService, { heavy }: RpcProcedures) {
  return {
    prompt: router({
      list: heavy.input(dto(PromptListInput)).query(({ ctx, input }) => prompts.listPrompts(ctx.actor, input.projectId, input.cursor)),
      versions: heavy
        .input(dto(PromptVersionsInput))
        .query(({ ctx, input }) => prompts.promptVersions(ctx.actor, input.projectId, input.name, input.cursor)),
    }),
  };
}
