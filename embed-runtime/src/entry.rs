//! [`Entry`]: an entry point of a bundler's build (Vite's manifest), for server-rendered
//! pages that link to hashed files.

/// An entry point of a Vite build (`index.html`, `src/admin.ts`), from the folder's
/// `.vite/manifest.json`: the script to load, with the stylesheets and chunks it
/// needs, as URLs of the embedded table.
///
/// The macro's item form defines one constant per entry in `paths::entries`, so
/// server-rendered HTML can link to the hashed files:
///
/// ```ignore
/// let entry = paths::entries::INDEX_HTML;
/// let head: String = entry
///     .css()
///     .iter()
///     .map(|href| format!(r#"<link rel="stylesheet" href="{href}">"#))
///     .chain(std::iter::once(format!(r#"<script type="module" src="{}"></script>"#, entry.file())))
///     .collect();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub(crate) file: &'static str,
    pub(crate) css: &'static [&'static str],
    pub(crate) imports: &'static [&'static str],
}

impl Entry {
    /// The entry's script (`/assets/index-C0x2Zvij.js`), to load with
    /// `<script type="module">`.
    pub const fn file(&self) -> &'static str {
        self.file
    }

    /// The stylesheets of the entry and of the chunks it imports, in load order.
    pub const fn css(&self) -> &'static [&'static str] {
        self.css
    }

    /// The JavaScript chunks the entry imports statically, for
    /// `<link rel="modulepreload">`.
    pub const fn imports(&self) -> &'static [&'static str] {
        self.imports
    }
}
