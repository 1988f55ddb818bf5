/** Counts of rare paths, so the test can show the generator reaches them. */
export interface Coverage {
  shared: number;
  quorumReleased: number;
  budgetRefused: number;
  budgetAborted: number;
  /** for_each steps expanded into children */
  expanded: number;
  /** for_each steps done at once over an empty list */
  noItems: number;
  /** for_each steps failed for a list past the item limit */
  tooManyItems: number;
  /** for_each steps done with collected children */
  collected: number;
  /** for_each steps failed because some items failed */
  collectedFailed: number;
  /** ready children held back by their parent's for_each max_parallel */
  childBoundHeld: number;
  /** steps done from a run that reported trusted output, tainted by what their input held */
  taintInherited: number;
  /** ready steps held back by a full max_parallel or pool (liveness) */
  capacityHeld: number;
  /** running plans with nothing live, waiting only for a retry time (liveness) */
  waitingOnTime: number;
  /** steps that started their escalated attempt after a fixable failure */
  escalated: number;
  /** plans that settled (not aborted or cancelled), by outcome */
  endedCompleted: number;
  endedPartial: number;
  endedFailedNoResult: number;
  /** steps a member stopped */
  stopped: number;
  /** steps that failed under on_failure continue (and stayed failed) */
  continuedFailure: number;
  /** ended plans a member's retry reopened */
  reopened: number;
}

export function emptyCoverage(): Coverage {
  return {
    shared: 0,
    quorumReleased: 0,
    budgetRefused: 0,
    budgetAborted: 0,
    expanded: 0,
    noItems: 0,
    tooManyItems: 0,
    collected: 0,
    escalated: 0,
    collectedFailed: 0,
    childBoundHeld: 0,
    taintInherited: 0,
    capacityHeld: 0,
    waitingOnTime: 0,
    endedCompleted: 0,
    endedPartial: 0,
    endedFailedNoResult: 0,
    stopped: 0,
    continuedFailure: 0,
    reopened: 0,
  };
}
