//! The file a backup is written into before it has its name: created exclusively and private
//! (0600), published without replacing anything, and removed only while it is still the file
//! this backup created.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::file_error;
use crate::error::DbError;

/// Read and write for the owner only: a backup holds webhook secrets, sessions and e-mail
/// addresses, whatever the umask of the shell that took it.
const PRIVATE: u32 = 0o600;

/// `<to>.partial`, created by this backup.
pub(super) struct Partial {
    pub(super) path: PathBuf,
    /// Device and inode of the file created, to tell it from anything put in its place.
    id: (u64, u64),
}

impl Partial {
    /// Creates `<to>.partial`, empty (`VACUUM INTO` accepts an empty file). `create_new` is
    /// `O_CREAT | O_EXCL`: it fails on anything already there, a symlink (even dangling) too,
    /// so it neither follows a link nor takes over another backup's file.
    pub(super) fn create(to: &Path) -> Result<Self, DbError> {
        let mut name = to.file_name().unwrap_or_default().to_os_string();
        name.push(".partial");
        let path = to.with_file_name(name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(PRIVATE)
            .open(&path)
            .map_err(|e| match e.kind() {
                ErrorKind::AlreadyExists => DbError::BackupInProgress(path.display().to_string()),
                _ => file_error(&path, e),
            })?;
        let meta = file.metadata().map_err(|e| file_error(&path, e))?;
        Ok(Self {
            id: (meta.dev(), meta.ino()),
            path,
        })
    }

    /// Fails unless the file at the path is still the one created (not replaced, say by a
    /// symlink, while SQLite wrote it).
    pub(super) fn still_ours(&self) -> Result<(), DbError> {
        if self.is_ours() {
            Ok(())
        } else {
            Err(file_error(
                &self.path,
                std::io::Error::other("was replaced while the backup was written"),
            ))
        }
    }

    fn is_ours(&self) -> bool {
        std::fs::symlink_metadata(&self.path)
            .is_ok_and(|m| m.file_type().is_file() && (m.dev(), m.ino()) == self.id)
    }

    /// Gives the copy the name `to`. A hard link fails if anything is at `to` (a file or
    /// symlink put there since the check) where a rename would replace it; where the file
    /// system has no hard links the copy is written into a new private `to` (`O_EXCL`).
    pub(super) fn publish(&self, to: &Path) -> Result<(), DbError> {
        match std::fs::hard_link(&self.path, to) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                return Err(DbError::BackupExists(to.display().to_string()));
            }
            Err(_) => self.copy_to(to)?,
        }
        self.remove();
        Ok(())
    }

    fn copy_to(&self, to: &Path) -> Result<(), DbError> {
        let mut target = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(PRIVATE)
            .open(to)
            .map_err(|e| match e.kind() {
                ErrorKind::AlreadyExists => DbError::BackupExists(to.display().to_string()),
                _ => file_error(to, e),
            })?;
        let copied = File::open(&self.path)
            .and_then(|mut source| std::io::copy(&mut source, &mut target))
            .and_then(|_| target.sync_all());
        if let Err(e) = copied {
            // `to` is the file just created: no half backup is left under its name.
            let _ = std::fs::remove_file(to);
            return Err(file_error(to, e));
        }
        Ok(())
    }

    /// Removes the file, if it is still the one this backup created.
    pub(super) fn remove(&self) {
        if self.is_ours() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
