//! Coaching preferences: stored, read back and replaced.

use adapters_diesel::DieselPreferencesRepository;
use domain::coaching::{CoachingPreferences, PreferenceSource, Threshold, derive_preferences};
use domain::ports::PreferencesRepository;
use domain::profile::Triad;
use time::Duration;

use crate::harness::{T0, count, user};

dual_test!(
    preferences_round_trip_and_a_second_put_replaces_them,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselPreferencesRepository::new(db.clone());
        assert_eq!(repo.get(ada.id).await.unwrap(), None);
        let derived = CoachingPreferences {
            user_id: ada.id,
            settings: derive_preferences(Triad::Head),
            source: PreferenceSource::Derived,
            updated_at: T0,
        };
        repo.put(&derived).await.unwrap();
        assert_eq!(repo.get(ada.id).await.unwrap(), Some(derived));

        let mut settings = derive_preferences(Triad::Gut);
        settings.misalignment_threshold = Threshold::new(0.123_456_789).unwrap();
        let overridden = CoachingPreferences {
            user_id: ada.id,
            settings,
            source: PreferenceSource::Override,
            updated_at: T0 + Duration::days(1),
        };
        repo.put(&overridden).await.unwrap();
        assert_eq!(repo.get(ada.id).await.unwrap(), Some(overridden));
        assert_eq!(count(&db, "coaching_preferences").await, 1);
        assert_eq!(repo.get(bob.id).await.unwrap(), None);
    }
);
