//! Integration use cases: task-mapping upserts (single and all-or-nothing batches), listing,
//! deletion, mapping rules and the re-classification they queue, the unmapped view and the
//! work-pattern read-back.

use crate::account::TimeZone;
use crate::clock::Clock;
use crate::error::RepoError;
use crate::ids::{RuleId, UserId};
use crate::integration::{
    BatchOutcome, ExternalTaskId, InvalidDays, InvalidSweep, InvalidWeeks, MAX_BATCH, NewRule,
    Reclassification, ReclassifyStep, Rule, RuleChangeError, Sweep, SweepPrefix, TaskMapping,
    TaskMappingInput, TaskMappingQuery, UnmappedGroup, UnmappedQuery, UpsertOutcome, WeeklyPattern,
    Weeks, Window, WorkPattern, rollup, weekly,
};
use crate::pagination::{Page, PageLimit};
use crate::ports::{RuleRepository, TaskMappingRepository};
use time::OffsetDateTime;

/// The integration use cases.
#[derive(Debug, Clone)]
pub struct IntegrationService<T, R, K> {
    tasks: T,
    rules: R,
    clock: K,
}

/// Failure of [`IntegrationService::upsert_batch`].
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("a batch holds at most {MAX_BATCH} items (got {0})")]
    TooLarge(usize),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`IntegrationService::delete`].
#[derive(Debug, thiserror::Error)]
pub enum DeleteMappingError {
    #[error("no such task mapping")]
    NotFound,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`IntegrationService::sweep`].
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Invalid(#[from] InvalidSweep),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`IntegrationService::work_patterns`].
#[derive(Debug, thiserror::Error)]
pub enum WorkPatternError {
    #[error(transparent)]
    InvalidDays(#[from] InvalidDays),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`IntegrationService::weekly`].
#[derive(Debug, thiserror::Error)]
pub enum WeeklyError {
    #[error(transparent)]
    InvalidWeeks(#[from] InvalidWeeks),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl<T: TaskMappingRepository, R: RuleRepository, K: Clock> IntegrationService<T, R, K> {
    pub fn new(tasks: T, rules: R, clock: K) -> Self {
        Self {
            tasks,
            rules,
            clock,
        }
    }

    /// Creates or updates the mapping with this external id.
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// sending the same entry again is safe (an upsert by its external id).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn upsert(
        &self,
        user: UserId,
        input: &TaskMappingInput,
    ) -> Result<(TaskMapping, UpsertOutcome), RepoError> {
        self.tasks.upsert(user, input, self.clock.now()).await
    }

    /// Upserts up to [`MAX_BATCH`] items in one transaction; returns how many it created and updated.
    ///
    /// # Errors
    /// [`BatchError::TooLarge`] over the limit; storage failures (nothing written).
    pub async fn upsert_batch(
        &self,
        user: UserId,
        inputs: Vec<TaskMappingInput>,
    ) -> Result<BatchOutcome, BatchError> {
        if inputs.len() > MAX_BATCH {
            return Err(BatchError::TooLarge(inputs.len()));
        }
        if inputs.is_empty() {
            return Ok(BatchOutcome::default());
        }
        Ok(self
            .tasks
            .upsert_batch(user, inputs, self.clock.now())
            .await?)
    }

    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn list(
        &self,
        user: UserId,
        query: &TaskMappingQuery,
    ) -> Result<Page<TaskMapping>, RepoError> {
        self.tasks.list(user, query).await
    }

    /// # Errors
    /// [`DeleteMappingError::NotFound`] when the user has no mapping with this external id,
    /// including an id no mapping can have (too long, or with NUL or control characters, which
    /// are refused on the way in and which PostgreSQL could not even compare).
    pub async fn delete(
        &self,
        user: UserId,
        external_task_id: &str,
    ) -> Result<(), DeleteMappingError> {
        if ExternalTaskId::new(external_task_id).is_err() {
            return Err(DeleteMappingError::NotFound);
        }
        if self.tasks.delete(user, external_task_id).await? {
            Ok(())
        } else {
            Err(DeleteMappingError::NotFound)
        }
    }

    /// Deletes the caller's entries under `prefix` in `[from, to)` that no request has sent
    /// since `not_sent_since`; how many.
    ///
    /// # Errors
    /// [`SweepError::Invalid`] for a sweep [`Sweep::new`] refuses (nothing asked of storage);
    /// storage failures (nothing deleted).
    pub async fn sweep(
        &self,
        user: UserId,
        prefix: SweepPrefix,
        (from, to): (OffsetDateTime, OffsetDateTime),
        not_sent_since: OffsetDateTime,
    ) -> Result<u64, SweepError> {
        let sweep = Sweep::new(prefix, from, to, not_sent_since, self.clock.now())?;
        Ok(self.tasks.sweep(user, &sweep).await?)
    }

    /// The rollup of the last `days` days (1-365), its days dated in the person's `zone`.
    ///
    /// # Errors
    /// [`WorkPatternError::InvalidDays`] outside 1-365; storage failures.
    pub async fn work_patterns(
        &self,
        user: UserId,
        days: i64,
        zone: &TimeZone,
    ) -> Result<WorkPattern, WorkPatternError> {
        let window = Window::ending_at(self.clock.now(), days)?;
        let daily = self.tasks.daily_minutes(user, &window, zone).await?;
        let mut pattern = rollup(window, zone, &daily);
        pattern.reclassifying = self.rules.reclassification(user).await?.running;
        Ok(pattern)
    }

    /// The last `weeks` local weeks (1-104) of the person's `zone`, ending with the current one.
    ///
    /// # Errors
    /// [`WeeklyError::InvalidWeeks`] outside 1-104; storage failures.
    pub async fn weekly(
        &self,
        user: UserId,
        weeks: i64,
        zone: &TimeZone,
    ) -> Result<WeeklyPattern, WeeklyError> {
        let weeks = Weeks::ending_at(self.clock.now(), zone, weeks)?;
        let sums = self.tasks.weekly_minutes(user, &weeks, zone).await?;
        Ok(weekly(&weeks, zone, &sums))
    }

    /// The unmapped entries of the last `days` days (1-365) grouped by label and tags, most
    /// minutes first, at most `limit` groups.
    ///
    /// # Errors
    /// [`WorkPatternError::InvalidDays`] outside 1-365; storage failures.
    pub async fn unmapped(
        &self,
        user: UserId,
        days: i64,
        limit: PageLimit,
    ) -> Result<Vec<UnmappedGroup>, WorkPatternError> {
        let window = Window::ending_at(self.clock.now(), days)?;
        Ok(self
            .tasks
            .unmapped(user, &UnmappedQuery { window, limit })
            .await?)
    }

    /// The person's rules, by position.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn rules(&self, user: UserId) -> Result<Vec<Rule>, RepoError> {
        self.rules.list(user).await
    }

    /// Adds a rule and queues the re-classification of the entries it matches.
    ///
    /// # Errors
    /// [`RuleChangeError::TooMany`] at the limit; storage failures (nothing changed).
    pub async fn add_rule(&self, user: UserId, rule: &NewRule) -> Result<Rule, RuleChangeError> {
        self.rules.create(user, rule, self.clock.now()).await
    }

    /// Replaces a rule and queues the re-classification of the entries it matched or matches.
    ///
    /// # Errors
    /// [`RuleChangeError::NotFound`]; storage failures (nothing changed).
    pub async fn replace_rule(
        &self,
        user: UserId,
        id: RuleId,
        rule: &NewRule,
    ) -> Result<Rule, RuleChangeError> {
        self.rules.replace(user, id, rule, self.clock.now()).await
    }

    /// Deletes a rule and queues the re-classification of the entries it matched.
    ///
    /// # Errors
    /// [`RuleChangeError::NotFound`]; storage failures (nothing changed).
    pub async fn delete_rule(&self, user: UserId, id: RuleId) -> Result<(), RuleChangeError> {
        self.rules.delete(user, id, self.clock.now()).await
    }

    /// How far the person's re-classification is.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn reclassification(&self, user: UserId) -> Result<Reclassification, RepoError> {
        self.rules.reclassification(user).await
    }

    /// One round of the background work: a step of each queued job (at most `people` of
    /// them), so one person's large job never holds back another's. Returns how many entries
    /// were decided and whether any job remains.
    ///
    /// # Errors
    /// Storage failures; the jobs stay queued and resume on the next round.
    pub async fn reclassify_round(&self, people: u32) -> Result<RoundReport, RepoError> {
        let mut report = RoundReport::default();
        for user in self.rules.reclassification_queue(people).await? {
            match self.rules.reclassify_step(user, self.clock.now()).await? {
                ReclassifyStep::Finished => {}
                ReclassifyStep::More { decided } => {
                    report.decided += decided;
                    report.remaining = true;
                }
            }
        }
        Ok(report)
    }
}

/// What [`IntegrationService::reclassify_round`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundReport {
    /// Entries decided again.
    pub decided: u64,
    /// Some job still has work left.
    pub remaining: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FixedClock;
    use crate::foundation::Foundation;
    use crate::integration::{DailyMinutes, FoundationMinutes, Minutes, Tags};
    use crate::ports::{MockRuleRepository, MockTaskMappingRepository};
    use crate::services::fixtures::{NOW, block_on, clock};

    type Service = IntegrationService<MockTaskMappingRepository, MockRuleRepository, FixedClock>;

    fn service(tasks: MockTaskMappingRepository) -> Service {
        IntegrationService::new(tasks, MockRuleRepository::new(), clock())
    }

    fn input(n: usize) -> TaskMappingInput {
        TaskMappingInput::new(
            ExternalTaskId::new(format!("t-{n}")).unwrap(),
            None,
            Some(Foundation::Love),
            Tags::default(),
            Minutes::new(10).unwrap(),
            NOW,
        )
        .unwrap()
    }

    #[test]
    fn a_batch_over_the_limit_is_refused_before_storage() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_upsert_batch().never();
        let items: Vec<_> = (0..=MAX_BATCH).map(input).collect();
        let err = block_on(service(tasks).upsert_batch(UserId::new(), items)).unwrap_err();
        assert!(matches!(err, BatchError::TooLarge(1_001)));
    }

    #[test]
    fn a_full_batch_goes_to_storage_in_one_call() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_upsert_batch()
            .withf(|_, items, now| items.len() == MAX_BATCH && *now == NOW)
            .times(1)
            .returning(|_, items, _| {
                Ok(BatchOutcome {
                    created: items.len(),
                    updated: 0,
                })
            });
        let items: Vec<_> = (0..MAX_BATCH).map(input).collect();
        assert_eq!(
            block_on(service(tasks).upsert_batch(UserId::new(), items)).unwrap(),
            BatchOutcome {
                created: 1_000,
                updated: 0
            }
        );
    }

    #[test]
    fn a_sweep_reaches_storage_checked_and_returns_its_count() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_sweep()
            .withf(|_, s| s.prefix.as_str() == "toggl:" && s.to == NOW && s.not_sent_since == NOW)
            .times(1)
            .returning(|_, _| Ok(7));
        let prefix = SweepPrefix::new("toggl:").unwrap();
        let range = (NOW - time::Duration::DAY, NOW);
        let swept = block_on(service(tasks).sweep(UserId::new(), prefix, range, NOW));
        assert_eq!(swept.unwrap(), 7);
    }

    #[test]
    fn a_sweep_from_the_future_is_refused_before_storage() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_sweep().never();
        let prefix = SweepPrefix::new("toggl:").unwrap();
        let range = (NOW - time::Duration::DAY, NOW);
        let later = NOW + time::Duration::MINUTE;
        let err = block_on(service(tasks).sweep(UserId::new(), prefix, range, later)).unwrap_err();
        assert!(matches!(
            err,
            SweepError::Invalid(InvalidSweep::FromTheFuture)
        ));
    }

    #[test]
    fn deleting_a_mapping_that_is_not_there_is_not_found() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_delete().returning(|_, _| Ok(false));
        let err = block_on(service(tasks).delete(UserId::new(), "t-1")).unwrap_err();
        assert!(matches!(err, DeleteMappingError::NotFound));
    }

    #[test]
    fn deleting_by_an_id_no_mapping_can_have_is_not_found_without_asking_storage() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_delete().never();
        let service = service(tasks);
        for id in ["t\0-1", "t\u{1b}-1", &"x".repeat(201)] {
            let err = block_on(service.delete(UserId::new(), id)).unwrap_err();
            assert!(matches!(err, DeleteMappingError::NotFound), "{id:?}");
        }
    }

    #[test]
    fn work_patterns_validate_days_and_roll_up_the_database_sums() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_daily_minutes().never();
        let refusing = service(tasks);
        for days in [0, 366, -5] {
            assert!(matches!(
                block_on(refusing.work_patterns(UserId::new(), days, &TimeZone::utc())),
                Err(WorkPatternError::InvalidDays(_))
            ));
        }

        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_daily_minutes()
            .withf(|_, w, z| w.days == 30 && w.to == NOW && z.name() == "UTC")
            .returning(|_, _, _| {
                Ok(vec![DailyMinutes {
                    date: NOW.date(),
                    minutes: FoundationMinutes::from([30, 0, 0, 90, 0, 0]),
                    unmapped: 40,
                }])
            });
        let mut rules = MockRuleRepository::new();
        rules.expect_reclassification().times(1).returning(|_| {
            Ok(Reclassification {
                running: true,
                done: 5,
                total: 9,
            })
        });
        let p = block_on(
            IntegrationService::new(tasks, rules, clock()).work_patterns(
                UserId::new(),
                30,
                &TimeZone::utc(),
            ),
        )
        .unwrap();
        assert_eq!(p.time_zone, "UTC");
        assert!(p.reclassifying, "a running job shows in the work patterns");
        assert_eq!(p.total_minutes, 120);
        assert_eq!(p.unmapped_minutes, 40);
        assert_eq!(p.coverage, 0.75);
        assert_eq!(p.daily.len(), 31);
        assert_eq!(
            p.neglected,
            [
                Foundation::Strength,
                Foundation::Mission,
                Foundation::ShortTerm,
                Foundation::LongTerm
            ]
        );
    }

    #[test]
    fn the_weekly_series_checks_weeks_and_asks_storage_for_the_local_weeks() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_weekly_minutes().never();
        let refusing = service(tasks);
        for weeks in [0, 105, -1] {
            assert!(matches!(
                block_on(refusing.weekly(UserId::new(), weeks, &TimeZone::utc())),
                Err(WeeklyError::InvalidWeeks(_))
            ));
        }

        let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
        let monday = crate::integration::monday_of(tokyo.date_of(NOW));
        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_weekly_minutes()
            .withf(move |_, w, z| {
                w.count == 4
                    && w.to == NOW
                    && z.name() == "Asia/Tokyo"
                    && w.first == monday - time::Duration::weeks(3)
            })
            .times(1)
            .returning(move |_, _, _| {
                Ok(vec![DailyMinutes {
                    date: monday,
                    minutes: FoundationMinutes::from([0, 45, 0, 0, 0, 0]),
                    unmapped: 10,
                }])
            });
        let p = block_on(service(tasks).weekly(UserId::new(), 4, &tokyo)).unwrap();
        assert_eq!(p.time_zone, "Asia/Tokyo");
        assert_eq!(p.weeks.len(), 4);
        assert_eq!(p.weeks[3].date, monday);
        assert_eq!((p.weeks[3].minutes.total(), p.weeks[3].unmapped), (45, 10));
    }

    #[test]
    fn the_unmapped_view_checks_days_and_asks_storage_for_the_window() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_unmapped().never();
        let refusing = service(tasks);
        assert!(matches!(
            block_on(refusing.unmapped(UserId::new(), 0, PageLimit::DEFAULT)),
            Err(WorkPatternError::InvalidDays(_))
        ));

        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_unmapped()
            .withf(|_, q| q.window.days == 7 && q.window.to == NOW && q.limit.get() == 20)
            .times(1)
            .returning(|_, _| Ok(Vec::new()));
        let limit = PageLimit::new(20).unwrap();
        assert!(
            block_on(service(tasks).unmapped(UserId::new(), 7, limit))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn rule_changes_reach_storage_with_the_clock_and_keep_its_answer() {
        use crate::integration::{MatchKind, Pattern, RuleMatch};
        let new_rule = NewRule {
            matcher: RuleMatch::new(MatchKind::Tag, Pattern::non_blank("deep").unwrap()),
            foundation: Foundation::Vocation,
            position: None,
        };
        let mut rules = MockRuleRepository::new();
        rules
            .expect_create()
            .withf(|_, _, now| *now == NOW)
            .times(1)
            .returning(|_, _, _| Err(RuleChangeError::TooMany));
        rules
            .expect_delete()
            .withf(|_, _, now| *now == NOW)
            .times(1)
            .returning(|_, _, _| Err(RuleChangeError::NotFound));
        let service = IntegrationService::new(MockTaskMappingRepository::new(), rules, clock());
        assert!(matches!(
            block_on(service.add_rule(UserId::new(), &new_rule)),
            Err(RuleChangeError::TooMany)
        ));
        assert!(matches!(
            block_on(service.delete_rule(UserId::new(), RuleId::new())),
            Err(RuleChangeError::NotFound)
        ));
    }

    #[test]
    fn a_round_takes_one_step_of_each_queued_job_and_says_what_remains() {
        let (a, b) = (UserId::new(), UserId::new());
        let mut rules = MockRuleRepository::new();
        rules
            .expect_reclassification_queue()
            .withf(|limit| *limit == 10)
            .times(1)
            .returning(move |_| Ok(vec![a, b]));
        rules
            .expect_reclassify_step()
            .withf(move |user, now| *user == a && *now == NOW)
            .times(1)
            .returning(|_, _| Ok(ReclassifyStep::More { decided: 2_000 }));
        rules
            .expect_reclassify_step()
            .withf(move |user, _| *user == b)
            .times(1)
            .returning(|_, _| Ok(ReclassifyStep::Finished));
        let service = IntegrationService::new(MockTaskMappingRepository::new(), rules, clock());
        assert_eq!(
            block_on(service.reclassify_round(10)).unwrap(),
            RoundReport {
                decided: 2_000,
                remaining: true
            }
        );

        let mut idle = MockRuleRepository::new();
        idle.expect_reclassification_queue()
            .returning(|_| Ok(Vec::new()));
        idle.expect_reclassify_step().never();
        let service = IntegrationService::new(MockTaskMappingRepository::new(), idle, clock());
        assert_eq!(
            block_on(service.reclassify_round(10)).unwrap(),
            RoundReport::default()
        );
    }

    #[test]
    fn a_failed_step_is_reported_and_the_rest_of_the_round_waits() {
        let mut rules = MockRuleRepository::new();
        rules
            .expect_reclassification_queue()
            .returning(|_| Ok(vec![UserId::new(), UserId::new()]));
        rules
            .expect_reclassify_step()
            .times(1)
            .returning(|_, _| Err(RepoError::Unavailable(anyhow::anyhow!("down"))));
        let service = IntegrationService::new(MockTaskMappingRepository::new(), rules, clock());
        assert!(matches!(
            block_on(service.reclassify_round(10)),
            Err(RepoError::Unavailable(_))
        ));
    }
}
