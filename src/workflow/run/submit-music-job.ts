import type { MusicClient, MusicClipsResult } from "../../gateway/music-client.js";
import type { OperationOutcome, UsageRecorder, UsageReservation } from "../../gateway/usage-recorder.js";
import type { CostJournal } from "./cost-journal.js";
import type { JournaledMusicJob } from "./journal-records.js";

/** What one music submission needs from the step it belongs to. */
export interface MusicSubmission {
  /** The step instance's key. */
  readonly key: string;
  readonly operation: string;
  /** The tool call the job is kept under, when a tool (not the step itself) starts it. */
  readonly call?: string;
  /** The step's recorder (its ledger tags and the run's cap). */
  readonly recorder: UsageRecorder;
  readonly costs: CostJournal;
  /** A music client that bills its calls to `recorder`. */
  readonly client: (recorder: UsageRecorder) => MusicClient;
}

/**
 * Sends one billed music call that starts a job, and journals the job (its clip ids) in the same
 * record as the call's bill. The client settles a call's bill before it has read the clip ids from
 * the answer, so a successful settle is held back until they are known; a call that fails after its
 * bill was settled (an answer without readable clips) is journaled as a plain bill.
 */
export async function submitMusicJob(
  submission: MusicSubmission,
  call: (music: MusicClient) => Promise<MusicClipsResult>,
): Promise<JournaledMusicJob> {
  const held: (() => void)[] = [];
  const recorder: UsageRecorder = {
    reserve: (operation) => {
      const reservation = submission.recorder.reserve(operation);
      const holding: UsageReservation = {
        ...(reservation.ready === undefined ? {} : { ready: reservation.ready }),
        settle: (outcome: OperationOutcome) => {
          if (outcome.status === "ok") held.push(() => reservation.settle(outcome));
          else reservation.settle(outcome);
        },
        release: () => reservation.release(),
      };
      return holding;
    },
  };
  try {
    const { clips, ids } = await call(submission.client(recorder));
    const job = {
      key: submission.key,
      operation: submission.operation,
      clipIds: clips.map((clip) => clip.id),
      ...(submission.call === undefined ? {} : { call: submission.call }),
    };
    const settles = held.splice(0);
    await submission.costs.journalWithBill(job, () => {
      for (const settle of settles) settle();
    });
    return { ...job, ...(ids.requestId === undefined ? {} : { requestId: ids.requestId }) };
  } finally {
    for (const settle of held.splice(0)) settle();
  }
}
