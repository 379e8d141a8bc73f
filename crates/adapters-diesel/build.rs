//! Rebuilds the crate when a migration changes, since `embed_migrations!` reads them at compile time.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
