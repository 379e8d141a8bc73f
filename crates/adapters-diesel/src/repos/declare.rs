//! `repository!`, the shape every repository shares: a cloneable handle over the `Database`.
//! It has a file of its own because the repository files use it and `repos/mod.rs` re-exports
//! them. If the macro were in `mod.rs`, the repository files and `mod.rs` would import each other.

/// Declares a repository type that holds a [`Database`](crate::database::Database).
macro_rules! repository {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            db: $crate::database::Database,
        }

        impl $name {
            #[must_use]
            pub const fn new(db: $crate::database::Database) -> Self {
                Self { db }
            }
        }
    };
}
pub(super) use repository;
