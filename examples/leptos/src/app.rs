//! The app: a home page with a counter (a signal, in the browser) and a server
//! function, an about page reached by the router in the page, and a page whose code
//! is a wasm chunk of its own, fetched when the router first shows it.

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::{Lazy, LazyRoute, lazy_route, path};

/// The whole HTML document the server sends. `HydrationScripts` links
/// `/pkg/example-leptos.js` and `/pkg/example-leptos.wasm`, where the embedded site
/// serves them.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The app, with its routes.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        // cargo-leptos writes style/main.css to /pkg/example-leptos.css.
        <Stylesheet id="leptos" href="/pkg/example-leptos.css"/>
        <Title text="Leptos in one binary"/>
        <Router>
            <nav>
                <A href="/">"Home"</A>
                <A href="/about">"About"</A>
                <A href="/lazy">"Lazy"</A>
            </nav>
            <main>
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=HomePage/>
                    <Route path=path!("/about") view=AboutPage/>
                    <Route path=path!("/lazy") view={Lazy::<LazyPage>::new()}/>
                </Routes>
            </main>
        </Router>
    }
}

/// Answered by the server: the browser calls it with a POST to `/api/greet…`.
#[server]
pub async fn greet(name: String) -> Result<String, ServerFnError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed) + 1;
    Ok(format!("Hello, {name}, from the server (call {call})"))
}

#[component]
fn HomePage() -> impl IntoView {
    let count = RwSignal::new(0);
    let greet = ServerAction::<Greet>::new();
    let answer = move || match greet.value().get() {
        Some(Ok(text)) => text,
        Some(Err(err)) => format!("error: {err}"),
        None => String::new(),
    };
    view! {
        <h1>"Leptos in one binary"</h1>
        <p class="lead">
            "Rendered on the server; the wasm, its JavaScript and this style sheet come from the server's binary."
        </p>
        <button id="count" on:click=move |_| count.update(|n| *n += 1)>
            "Clicked " {count} " times"
        </button>
        <button id="greet" on:click=move |_| { greet.dispatch(Greet { name: "browser".into() }); }>
            "Ask the server"
        </button>
        <p id="answer">{answer}</p>
    }
}

/// The about page. Once the page is hydrated, its link is followed in the page,
/// without a request for a new document.
#[component]
fn AboutPage() -> impl IntoView {
    view! {
        <h1 id="about">"About"</h1>
        <p>"This page was rendered in the browser, by the router in the wasm."</p>
    }
}

/// A page loaded lazily. `cargo leptos build --split` moves the code of its `view`
/// out of the main wasm into a chunk of its own (`/pkg/split_*.wasm`), which the
/// router fetches when it first shows the page; `data` runs at once, in the main
/// wasm, while the chunk loads. On the server, nothing is split: the page is
/// rendered like the others, with a preload link for its chunk (see `src/main.rs`).
struct LazyPage {
    clicks: RwSignal<u32>,
}

#[lazy_route]
impl LazyRoute for LazyPage {
    fn data() -> Self {
        LazyPage {
            clicks: RwSignal::new(0),
        }
    }

    fn view(this: Self) -> AnyView {
        let LazyPage { clicks } = this;
        view! {
            <h1 id="lazy">"Loaded lazily"</h1>
            <p class="lead">
                "The code of this page is a wasm chunk of its own, fetched from the server's binary when the router first showed it."
            </p>
            <button id="lazy-count" on:click=move |_| clicks.update(|n| *n += 1)>
                "Lazy clicks: " {clicks}
            </button>
        }
        .into_any()
    }
}

/// Any other path: the app's 404 page, with a 404 status from the server.
#[component]
fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    view! { <h1>"Not found"</h1> }
}
