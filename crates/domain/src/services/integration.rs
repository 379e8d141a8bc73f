//! Integration use cases: task-mapping upserts (single and all-or-nothing batches), listing,
//! deletion and the work-pattern read-back.

use crate::clock::Clock;
use crate::error::RepoError;
use crate::ids::UserId;
use crate::integration::{
    ExternalTaskId, InvalidDays, MAX_BATCH, TaskMapping, TaskMappingInput, TaskMappingQuery,
    UpsertOutcome, Window, WorkPattern, rollup,
};
use crate::pagination::Page;
use crate::ports::TaskMappingRepository;

/// The integration use cases.
#[derive(Debug, Clone)]
pub struct IntegrationService<T, K> {
    tasks: T,
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

/// Failure of [`IntegrationService::work_patterns`].
#[derive(Debug, thiserror::Error)]
pub enum WorkPatternError {
    #[error(transparent)]
    InvalidDays(#[from] InvalidDays),
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl<T: TaskMappingRepository, K: Clock> IntegrationService<T, K> {
    pub fn new(tasks: T, clock: K) -> Self {
        Self { tasks, clock }
    }

    /// Creates or updates the mapping with this external id.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn upsert(
        &self,
        user: UserId,
        input: &TaskMappingInput,
    ) -> Result<(TaskMapping, UpsertOutcome), RepoError> {
        self.tasks.upsert(user, input, self.clock.now()).await
    }

    /// Upserts up to [`MAX_BATCH`] items in one transaction; returns `(created, updated)`.
    ///
    /// # Errors
    /// [`BatchError::TooLarge`] over the limit; storage failures (nothing written).
    pub async fn upsert_batch(
        &self,
        user: UserId,
        inputs: &[TaskMappingInput],
    ) -> Result<(usize, usize), BatchError> {
        if inputs.len() > MAX_BATCH {
            return Err(BatchError::TooLarge(inputs.len()));
        }
        if inputs.is_empty() {
            return Ok((0, 0));
        }
        Ok(self
            .tasks
            .upsert_batch(user, inputs, self.clock.now())
            .await?)
    }

    /// # Errors
    /// Storage failures.
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

    /// The rollup of the last `days` days (1-365).
    ///
    /// # Errors
    /// [`WorkPatternError::InvalidDays`] outside 1-365; storage failures.
    pub async fn work_patterns(
        &self,
        user: UserId,
        days: i64,
    ) -> Result<WorkPattern, WorkPatternError> {
        let window = Window::ending_at(self.clock.now(), days)?;
        let daily = self.tasks.daily_minutes(user, &window).await?;
        Ok(rollup(window, &daily))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundation::Foundation;
    use crate::integration::{DailyMinutes, FoundationMinutes, Minutes};
    use crate::ports::MockTaskMappingRepository;
    use crate::services::fixtures::{NOW, block_on, clock};

    fn input(n: usize) -> TaskMappingInput {
        TaskMappingInput::new(
            ExternalTaskId::new(format!("t-{n}")).unwrap(),
            None,
            Foundation::Love,
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
        let err =
            block_on(IntegrationService::new(tasks, clock()).upsert_batch(UserId::new(), &items))
                .unwrap_err();
        assert!(matches!(err, BatchError::TooLarge(1_001)));
    }

    #[test]
    fn a_full_batch_goes_to_storage_in_one_call() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_upsert_batch()
            .withf(|_, items, now| items.len() == MAX_BATCH && *now == NOW)
            .times(1)
            .returning(|_, items, _| Ok((items.len(), 0)));
        let items: Vec<_> = (0..MAX_BATCH).map(input).collect();
        assert_eq!(
            block_on(IntegrationService::new(tasks, clock()).upsert_batch(UserId::new(), &items))
                .unwrap(),
            (1_000, 0)
        );
    }

    #[test]
    fn deleting_a_mapping_that_is_not_there_is_not_found() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_delete().returning(|_, _| Ok(false));
        let err = block_on(IntegrationService::new(tasks, clock()).delete(UserId::new(), "t-1"))
            .unwrap_err();
        assert!(matches!(err, DeleteMappingError::NotFound));
    }

    #[test]
    fn deleting_by_an_id_no_mapping_can_have_is_not_found_without_asking_storage() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_delete().never();
        let service = IntegrationService::new(tasks, clock());
        for id in ["t\0-1", "t\u{1b}-1", &"x".repeat(201)] {
            let err = block_on(service.delete(UserId::new(), id)).unwrap_err();
            assert!(matches!(err, DeleteMappingError::NotFound), "{id:?}");
        }
    }

    #[test]
    fn work_patterns_validate_days_and_roll_up_the_database_sums() {
        let mut tasks = MockTaskMappingRepository::new();
        tasks.expect_daily_minutes().never();
        let service = IntegrationService::new(tasks, clock());
        for days in [0, 366, -5] {
            assert!(matches!(
                block_on(service.work_patterns(UserId::new(), days)),
                Err(WorkPatternError::InvalidDays(_))
            ));
        }

        let mut tasks = MockTaskMappingRepository::new();
        tasks
            .expect_daily_minutes()
            .withf(|_, w| w.days == 30 && w.to == NOW)
            .returning(|_, _| {
                Ok(vec![DailyMinutes {
                    date: NOW.date(),
                    minutes: FoundationMinutes::from([30, 0, 0, 90, 0, 0]),
                }])
            });
        let p = block_on(IntegrationService::new(tasks, clock()).work_patterns(UserId::new(), 30))
            .unwrap();
        assert_eq!(p.total_minutes, 120);
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
}
