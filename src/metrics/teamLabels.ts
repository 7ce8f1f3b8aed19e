/** The label of every team that gets no series of its own. */
export const OTHER_TEAMS = "other";

/** How many teams get their own series when no allow list is given. */
export const DEFAULT_LABELLED_TEAMS = 20;

/**
 * Chooses the `team` label of CU counters so that their number of series stays
 * bounded whatever the number of teams. With an allow list (METRICS_TEAMS), the
 * listed teams get their own series; otherwise the first `limit` teams charged
 * since the process started do. Everyone else is `other`.
 *
 * A team never moves between its own series and `other` during the process's
 * life: a ranking recomputed at each scrape ("top N") would move CU from one
 * counter to another, and `rate()` would read the drop as a counter reset.
 */
export const makeTeamLabels = (
  allow: ReadonlyArray<string>,
  limit: number = DEFAULT_LABELLED_TEAMS,
): ((team: string) => string) => {
  if (allow.length > 0) {
    const listed = new Set(allow.map((name) => name.toLowerCase()));
    return (team) => (listed.has(team.toLowerCase()) ? team : OTHER_TEAMS);
  }
  const chosen = new Set<string>();
  return (team) => {
    if (chosen.has(team)) return team;
    if (chosen.size >= limit || team === OTHER_TEAMS) return OTHER_TEAMS;
    chosen.add(team);
    return team;
  };
};
