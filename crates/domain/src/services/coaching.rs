//! Coaching use cases: preferences (derived, overridden, regenerated) and check-ins (on request,
//! answered once, and the scheduled run that writes the due ones without duplicates).

use serde::Serialize;

use crate::clock::Clock;
use crate::coaching::checkin::{AlreadyResponded, OBSERVATION_DAYS};
use crate::coaching::{
    CheckIn, CheckInOrigin, CoachingPreferences, PreferenceSettings, PreferenceSource,
    compose_checkin, derive_preferences, is_due,
};
use crate::error::RepoError;
use crate::ids::{CheckInId, UserId};
use crate::integration::{Window, WorkPattern, rollup};
use crate::pagination::{Cursor, Page, PageLimit};
use crate::ports::{
    CheckInRepository, PreferencesRepository, ProfileRepository, TaskMappingRepository,
};
use crate::profile::Profile;
use crate::text::Note;

/// The coaching use cases.
#[derive(Debug, Clone)]
pub struct CoachingService<P, S, C, T, K> {
    profiles: P,
    preferences: S,
    checkins: C,
    tasks: T,
    clock: K,
}

/// Failure of the preference use cases.
#[derive(Debug, thiserror::Error)]
pub enum PreferencesError {
    #[error("no profile")]
    NoProfile,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`CoachingService::create_checkin`].
#[derive(Debug, thiserror::Error)]
pub enum CreateCheckInError {
    #[error("no profile")]
    NoProfile,
    #[error("the profile is not affirmed yet")]
    NotAffirmed,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`CoachingService::respond`].
#[derive(Debug, thiserror::Error)]
pub enum RespondError {
    #[error("no such check-in")]
    NotFound,
    #[error(transparent)]
    AlreadyResponded(#[from] AlreadyResponded),
    #[error(transparent)]
    Repo(RepoError),
}

impl From<RepoError> for RespondError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::Conflict => Self::AlreadyResponded(AlreadyResponded),
            other => Self::Repo(other),
        }
    }
}

/// What a scheduled run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RunReport {
    /// Users with an affirmed profile that were looked at.
    pub considered: u64,
    /// Check-ins written.
    pub created: u64,
}

impl<P, S, C, T, K> CoachingService<P, S, C, T, K>
where
    P: ProfileRepository,
    S: PreferencesRepository,
    C: CheckInRepository,
    T: TaskMappingRepository,
    K: Clock,
{
    pub fn new(profiles: P, preferences: S, checkins: C, tasks: T, clock: K) -> Self {
        Self {
            profiles,
            preferences,
            checkins,
            tasks,
            clock,
        }
    }

    async fn profile(&self, user: UserId) -> Result<Option<Profile>, RepoError> {
        self.profiles.get(user).await
    }

    /// The stored preferences; on first read the derived defaults, stored.
    ///
    /// # Errors
    /// [`PreferencesError::NoProfile`] without a profile.
    pub async fn preferences(&self, user: UserId) -> Result<CoachingPreferences, PreferencesError> {
        let profile = self
            .profile(user)
            .await?
            .ok_or(PreferencesError::NoProfile)?;
        self.preferences_of(&profile).await.map_err(Into::into)
    }

    async fn preferences_of(&self, profile: &Profile) -> Result<CoachingPreferences, RepoError> {
        if let Some(stored) = self.preferences.get(profile.user_id).await? {
            return Ok(stored);
        }
        self.store(
            profile.user_id,
            derive_preferences(profile.triad()),
            PreferenceSource::Derived,
        )
        .await
    }

    async fn store(
        &self,
        user: UserId,
        settings: PreferenceSettings,
        source: PreferenceSource,
    ) -> Result<CoachingPreferences, RepoError> {
        let preferences = CoachingPreferences {
            user_id: user,
            settings,
            source,
            updated_at: self.clock.now(),
        };
        self.preferences.put(&preferences).await?;
        Ok(preferences)
    }

    /// Stores the person's own settings (`source: override`).
    ///
    /// # Errors
    /// [`PreferencesError::NoProfile`] without a profile.
    pub async fn set_preferences(
        &self,
        user: UserId,
        settings: PreferenceSettings,
    ) -> Result<CoachingPreferences, PreferencesError> {
        self.profile(user)
            .await?
            .ok_or(PreferencesError::NoProfile)?;
        Ok(self
            .store(user, settings, PreferenceSource::Override)
            .await?)
    }

    /// Re-derives the settings from the triad (`source: derived`).
    ///
    /// # Errors
    /// [`PreferencesError::NoProfile`] without a profile.
    pub async fn regenerate(&self, user: UserId) -> Result<CoachingPreferences, PreferencesError> {
        let profile = self
            .profile(user)
            .await?
            .ok_or(PreferencesError::NoProfile)?;
        Ok(self
            .store(
                user,
                derive_preferences(profile.triad()),
                PreferenceSource::Derived,
            )
            .await?)
    }

    /// Check-ins, newest first.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn checkins(
        &self,
        user: UserId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Page<CheckIn>, RepoError> {
        self.checkins.list(user, limit, before).await
    }

    /// Writes a check-in now, at the person's request.
    ///
    /// # Errors
    /// See [`CreateCheckInError`].
    pub async fn create_checkin(&self, user: UserId) -> Result<CheckIn, CreateCheckInError> {
        let profile = self
            .profile(user)
            .await?
            .ok_or(CreateCheckInError::NoProfile)?;
        if !profile.locked {
            return Err(CreateCheckInError::NotAffirmed);
        }
        let checkin = self.compose(&profile, CheckInOrigin::Manual).await?;
        self.checkins.insert(&checkin).await?;
        Ok(checkin)
    }

    async fn compose(
        &self,
        profile: &Profile,
        origin: CheckInOrigin,
    ) -> Result<CheckIn, RepoError> {
        let preferences = self.preferences_of(profile).await?;
        let now = self.clock.now();
        let recent = self.recent_pattern(profile.user_id).await?;
        Ok(compose_checkin(
            profile,
            preferences.settings.coaching_style,
            Some(&recent),
            origin,
            now,
        ))
    }

    async fn recent_pattern(&self, user: UserId) -> Result<WorkPattern, RepoError> {
        let window = Window::ending_at(self.clock.now(), i64::from(OBSERVATION_DAYS))
            .map_err(|e| RepoError::Unexpected(anyhow::anyhow!(e)))?;
        let daily = self.tasks.daily_minutes(user, &window).await?;
        Ok(rollup(window, &daily))
    }

    /// Records the person's answer to a check-in, once.
    ///
    /// # Errors
    /// See [`RespondError`].
    pub async fn respond(
        &self,
        user: UserId,
        id: CheckInId,
        still_valid: bool,
        note: Option<Note>,
    ) -> Result<CheckIn, RespondError> {
        let mut checkin = self
            .checkins
            .get(user, id)
            .await?
            .ok_or(RespondError::NotFound)?;
        checkin.respond(still_valid, note, self.clock.now())?;
        self.checkins.save_response(&checkin).await?;
        Ok(checkin)
    }

    /// The scheduled run: writes a check-in for every user whose check-in is due. Storage
    /// refuses a second one within the cadence, so concurrent or repeated runs add nothing.
    ///
    /// # Errors
    /// Storage failures (the check-ins written before the failure stay written).
    pub async fn run_due(&self) -> Result<RunReport, RepoError> {
        let page = PageLimit::new(500).map_err(|e| RepoError::Unexpected(anyhow::anyhow!(e)))?;
        let mut report = RunReport::default();
        let mut after = None;
        loop {
            let users = self.profiles.locked_users(after, page).await?;
            let Some(last) = users.last().copied() else {
                break;
            };
            after = Some(last);
            for user in users {
                report.considered += 1;
                if self.run_for(user).await? {
                    report.created += 1;
                }
            }
        }
        Ok(report)
    }

    async fn run_for(&self, user: UserId) -> Result<bool, RepoError> {
        let Some(profile) = self.profile(user).await? else {
            return Ok(false);
        };
        let preferences = self.preferences_of(&profile).await?;
        let frequency = preferences.settings.coaching_frequency;
        let now = self.clock.now();
        let last = self.checkins.latest_created_at(user).await?;
        if !is_due(profile.locked, frequency, last, now) {
            return Ok(false);
        }
        let checkin = self.compose(&profile, CheckInOrigin::Batch).await?;
        self.checkins
            .insert_unless_recent(&checkin, now - frequency.cadence())
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FixedClock;
    use crate::coaching::{CoachingFrequency, CoachingStyle};
    use crate::foundation::Foundation;
    use crate::integration::{DailyMinutes, FoundationMinutes};
    use crate::ports::{
        MockCheckInRepository, MockPreferencesRepository, MockProfileRepository,
        MockTaskMappingRepository,
    };
    use crate::profile::Triad;
    use crate::services::fixtures::{NOW, block_on, clock, locked_profile, unlocked_profile};
    use time::Duration;

    type Service = CoachingService<
        MockProfileRepository,
        MockPreferencesRepository,
        MockCheckInRepository,
        MockTaskMappingRepository,
        FixedClock,
    >;

    struct Mocks {
        profiles: MockProfileRepository,
        preferences: MockPreferencesRepository,
        checkins: MockCheckInRepository,
        tasks: MockTaskMappingRepository,
    }

    impl Mocks {
        fn new(profile: Option<Profile>) -> Self {
            let mut profiles = MockProfileRepository::new();
            profiles
                .expect_get()
                .returning(move |_| Ok(profile.clone()));
            let mut tasks = MockTaskMappingRepository::new();
            tasks
                .expect_daily_minutes()
                .returning(|_, _| Ok(Vec::new()));
            Self {
                profiles,
                preferences: MockPreferencesRepository::new(),
                checkins: MockCheckInRepository::new(),
                tasks,
            }
        }

        fn service(self) -> Service {
            CoachingService::new(
                self.profiles,
                self.preferences,
                self.checkins,
                self.tasks,
                clock(),
            )
        }
    }

    fn stored(user: UserId, frequency: CoachingFrequency) -> CoachingPreferences {
        let mut settings = derive_preferences(Triad::Gut);
        settings.coaching_frequency = frequency;
        CoachingPreferences {
            user_id: user,
            settings,
            source: PreferenceSource::Override,
            updated_at: NOW,
        }
    }

    #[test]
    fn the_first_read_stores_the_derived_defaults() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(unlocked_profile(user)));
        m.preferences.expect_get().returning(|_| Ok(None));
        m.preferences
            .expect_put()
            .withf(|p| {
                p.source == PreferenceSource::Derived
                    && p.settings == derive_preferences(Triad::Gut)
            })
            .times(1)
            .returning(|_| Ok(()));
        let p = block_on(m.service().preferences(user)).unwrap();
        assert_eq!(p.settings.coaching_style, CoachingStyle::Direct);
    }

    #[test]
    fn preferences_need_a_profile() {
        let mut m = Mocks::new(None);
        m.preferences.expect_put().never();
        assert!(matches!(
            block_on(m.service().preferences(UserId::new())),
            Err(PreferencesError::NoProfile)
        ));
    }

    #[test]
    fn an_override_is_stored_as_such_and_regeneration_derives_again() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(unlocked_profile(user)));
        let mut seq = mockall::Sequence::new();
        m.preferences
            .expect_put()
            .withf(|p| {
                p.source == PreferenceSource::Override
                    && p.settings.coaching_style == CoachingStyle::Warm
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        m.preferences
            .expect_put()
            .withf(|p| {
                p.source == PreferenceSource::Derived
                    && p.settings.coaching_style == CoachingStyle::Direct
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        let service = m.service();
        let mut settings = derive_preferences(Triad::Gut);
        settings.coaching_style = CoachingStyle::Warm;
        assert_eq!(
            block_on(service.set_preferences(user, settings))
                .unwrap()
                .source,
            PreferenceSource::Override
        );
        assert_eq!(
            block_on(service.regenerate(user)).unwrap().source,
            PreferenceSource::Derived
        );
    }

    #[test]
    fn a_check_in_needs_an_affirmed_profile() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(unlocked_profile(user)));
        m.checkins.expect_insert().never();
        assert!(matches!(
            block_on(m.service().create_checkin(user)),
            Err(CreateCheckInError::NotAffirmed)
        ));
    }

    #[test]
    fn a_manual_check_in_quotes_the_goal_and_observes_logged_time() {
        let user = UserId::new();
        let mut m = Mocks::new(Some(locked_profile(user)));
        m.preferences
            .expect_get()
            .returning(move |_| Ok(Some(stored(user, CoachingFrequency::Weekly))));
        m.tasks = MockTaskMappingRepository::new();
        m.tasks
            .expect_daily_minutes()
            .withf(|_, w| w.days == 14 && w.to == NOW)
            .returning(|_, _| {
                Ok(vec![DailyMinutes {
                    date: NOW.date(),
                    minutes: FoundationMinutes::from([0, 0, 0, 120, 0, 0]),
                }])
            });
        m.checkins.expect_insert().times(1).returning(|_| Ok(()));
        let c = block_on(m.service().create_checkin(user)).unwrap();
        assert_eq!(c.quoted_goals, ["Open the workshop on Saturdays."]);
        assert_eq!(c.origin, CheckInOrigin::Manual);
        assert!(
            c.observation
                .unwrap()
                .contains(Foundation::Vocation.title())
        );
    }

    #[test]
    fn a_second_response_is_refused() {
        let user = UserId::new();
        let profile = locked_profile(user);
        let mut answered = compose_checkin(
            &profile,
            CoachingStyle::Warm,
            None,
            CheckInOrigin::Manual,
            NOW,
        );
        answered.respond(true, None, NOW).unwrap();
        let id = answered.id;
        let mut m = Mocks::new(Some(profile));
        m.checkins
            .expect_get()
            .returning(move |_, _| Ok(Some(answered.clone())));
        m.checkins.expect_save_response().never();
        assert!(matches!(
            block_on(m.service().respond(user, id, false, None)),
            Err(RespondError::AlreadyResponded(_))
        ));
    }

    #[test]
    fn a_response_racing_another_is_refused_by_storage() {
        let user = UserId::new();
        let profile = locked_profile(user);
        let open = compose_checkin(
            &profile,
            CoachingStyle::Warm,
            None,
            CheckInOrigin::Manual,
            NOW,
        );
        let id = open.id;
        let mut m = Mocks::new(Some(profile));
        m.checkins
            .expect_get()
            .returning(move |_, _| Ok(Some(open.clone())));
        m.checkins
            .expect_save_response()
            .returning(|_| Err(RepoError::Conflict));
        assert!(matches!(
            block_on(m.service().respond(user, id, false, None)),
            Err(RespondError::AlreadyResponded(_))
        ));
    }

    #[test]
    fn someone_elses_check_in_is_not_found() {
        let mut m = Mocks::new(None);
        m.checkins.expect_get().returning(|_, _| Ok(None));
        assert!(matches!(
            block_on(
                m.service()
                    .respond(UserId::new(), CheckInId::new(), true, None)
            ),
            Err(RespondError::NotFound)
        ));
    }

    #[test]
    fn the_run_writes_only_due_check_ins_and_asks_storage_to_guard_the_cadence() {
        let due = UserId::new();
        let recent = UserId::new();
        let mut profiles = MockProfileRepository::new();
        profiles
            .expect_get()
            .returning(|user| Ok(Some(locked_profile(user))));
        let mut seq = mockall::Sequence::new();
        profiles
            .expect_locked_users()
            .withf(|after, _| after.is_none())
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_, _| Ok(vec![due, recent]));
        profiles
            .expect_locked_users()
            .withf(move |after, _| *after == Some(recent))
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(Vec::new()));
        let mut m = Mocks::new(None);
        m.profiles = profiles;
        m.preferences
            .expect_get()
            .returning(|user| Ok(Some(stored(user, CoachingFrequency::Weekly))));
        m.checkins
            .expect_latest_created_at()
            .returning(move |user| {
                Ok(Some(if user == due {
                    NOW - Duration::days(7)
                } else {
                    NOW - Duration::days(6)
                }))
            });
        m.checkins
            .expect_insert_unless_recent()
            .withf(move |c, since| {
                c.user_id == due
                    && c.origin == CheckInOrigin::Batch
                    && *since == NOW - Duration::days(7)
            })
            .times(1)
            .returning(|_, _| Ok(true));
        let report = block_on(m.service().run_due()).unwrap();
        assert_eq!(
            report,
            RunReport {
                considered: 2,
                created: 1
            }
        );
    }

    #[test]
    fn a_run_that_loses_the_race_to_another_host_counts_nothing_created() {
        let user = UserId::new();
        let mut profiles = MockProfileRepository::new();
        profiles
            .expect_get()
            .returning(|user| Ok(Some(locked_profile(user))));
        let mut seq = mockall::Sequence::new();
        profiles
            .expect_locked_users()
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_, _| Ok(vec![user]));
        profiles
            .expect_locked_users()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(Vec::new()));
        let mut m = Mocks::new(None);
        m.profiles = profiles;
        m.preferences
            .expect_get()
            .returning(|user| Ok(Some(stored(user, CoachingFrequency::Monthly))));
        m.checkins
            .expect_latest_created_at()
            .returning(|_| Ok(None));
        m.checkins
            .expect_insert_unless_recent()
            .times(1)
            .returning(|_, _| Ok(false));
        assert_eq!(
            block_on(m.service().run_due()).unwrap(),
            RunReport {
                considered: 1,
                created: 0
            }
        );
    }
}
