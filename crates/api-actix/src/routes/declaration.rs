//! [`Route`], the one declaration of a route: its handler, the `#[utoipa::path]` annotation
//! that states its method, path and answers, and who may call it ([`Policy`]). The router, the
//! OpenAPI document and the least-privilege check all read it, so adding a route is one edit
//! in one file: the handler with its annotation, and its line in the file's `routes()`. The
//! policy is the only access declaration: the operation's `security` is derived from it, and
//! an annotation that states `security(...)` itself is refused by a test of `routes`.
//!
//! A route cannot be declared without a policy: [`Route::new`] takes it first.
//!
//! ```compile_fail,E0061
//! use api_actix::routes::declaration::Route;
//!
//! #[utoipa::path(get, path = "/nowhere", responses((status = 204, description = "Nothing.")))]
//! async fn nowhere() -> actix_web::HttpResponse {
//!     actix_web::HttpResponse::NoContent().finish()
//! }
//!
//! // E0061: `Route::new` takes three arguments, and the policy is the first.
//! let _ = Route::new(nowhere, __path_nowhere);
//! ```
//!
//! And a handler mounted some other way gets no policy with it, so the `Caller` extractor lets
//! no caller in there (`auth::caller`).

use actix_web::http::Method;
use actix_web::{FromRequest, Handler, Resource, Responder, Route as ActixRoute, guard, web};
use utoipa::openapi::path::{HttpMethod, PathItem, PathsBuilder};
use utoipa::openapi::{Components, OpenApi};

use crate::auth::policy::{Policy, RoutePolicies};

/// The annotation `#[utoipa::path]` generates beside a handler (`__path_<handler>`): what
/// `#[derive(OpenApi)]` reads from the handlers its `paths(...)` lists.
///
/// Two of the three traits are in utoipa's `__dev` module: utoipa 6 has no public way to ask
/// an annotated handler for its tags or the schemas it names (`Path::operation()` carries
/// neither). utoipa's own framework crates (`utoipa-actix-web`, `utoipa-axum`) read them the
/// same way, so this is the use utoipa makes of them; `Path` is the public part.
pub trait Annotation:
    utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>
{
}

impl<T> Annotation for T where
    T: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>
{
}

/// One route of the API; see the module's documentation.
pub struct Route {
    method: Method,
    /// The whole path, as the annotation states it (`/api/me/sessions/{id}`).
    path: String,
    policy: Policy,
    /// How many methods the annotation states (one for each of ours).
    methods_stated: usize,
    /// Mounted only when dev login is on (always documented: off, it answers 404).
    dev_only: bool,
    /// Shares one resource with the routes of the same path next to it, set up by this.
    shared: Option<fn(Resource) -> Resource>,
    /// Sets the handler on the actix route it is mounted as.
    handler: Box<dyn FnOnce(ActixRoute) -> ActixRoute>,
    /// Whether the annotation states `security(...)` (it must not: the policy says it).
    annotated_security: bool,
    /// Adds the route's operation, with the security of a policy, and the schemas it names, to
    /// a document.
    describe: fn(&mut OpenApi, Policy),
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Route {
    /// The route `handler` answers, at the path and with the method its annotation states, for
    /// the callers `policy` lets in.
    pub fn new<H, Args, A>(policy: Policy, handler: H, _annotation: A) -> Self
    where
        H: Handler<Args>,
        Args: FromRequest + 'static,
        H::Output: Responder + 'static,
        A: Annotation,
    {
        let methods = A::methods();
        Self {
            method: methods.first().map_or(Method::GET, to_actix),
            path: A::path(),
            policy,
            methods_stated: methods.len(),
            dev_only: false,
            shared: None,
            handler: Box::new(move |route| route.to(handler)),
            annotated_security: A::operation().security.is_some(),
            describe: describe::<A>,
        }
    }

    /// Mounted only when dev login is on; documented always.
    #[must_use]
    pub fn dev_only(mut self) -> Self {
        self.dev_only = true;
        self
    }

    /// Shares one resource, set up by `setup` (a body limit, the JSON 405 for other methods),
    /// with the routes of the same path declared next to it that share it too.
    #[must_use]
    pub fn shared(mut self, setup: fn(Resource) -> Resource) -> Self {
        self.shared = Some(setup);
        self
    }

    #[must_use]
    pub fn method(&self) -> &Method {
        &self.method
    }

    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    #[must_use]
    pub const fn policy(&self) -> Policy {
        self.policy
    }

    #[must_use]
    pub const fn methods_stated(&self) -> usize {
        self.methods_stated
    }

    /// Whether the annotation states its own `security(...)`, a second access declaration.
    #[must_use]
    pub const fn annotated_security(&self) -> bool {
        self.annotated_security
    }

    /// Adds the route's operation, with the security its policy documents, and its schemas to
    /// `document`.
    pub fn describe(&self, document: &mut OpenApi) {
        (self.describe)(document, self.policy);
    }
}

/// The resources of `routes`, mounted in a scope at `prefix` (`""`: the root), in order; each
/// carries its routes' policies for the `Caller` extractor. A route stands alone on a resource
/// guarded by its method, as `ServiceConfig::route` mounts one, unless it is
/// [`shared`](Route::shared).
#[must_use]
pub fn resources(routes: Vec<Route>, prefix: &str, dev_login_enabled: bool) -> Vec<Resource> {
    let mut routes = routes
        .into_iter()
        .filter(|route| dev_login_enabled || !route.dev_only)
        .peekable();
    let mut resources = Vec::new();
    while let Some(first) = routes.next() {
        // Each file's routes sit under their scope's prefix (checked by the test of `routes`).
        let relative = first.path.strip_prefix(prefix).unwrap_or(&first.path);
        let mut policies = vec![(first.method.clone(), first.policy)];
        let resource = if let Some(setup) = first.shared {
            let mut resource = setup(web::resource(relative))
                .route((first.handler)(web::method(first.method.clone())));
            while let Some(next) =
                routes.next_if(|next| next.shared.is_some() && next.path == first.path)
            {
                policies.push((next.method.clone(), next.policy));
                resource = resource.route((next.handler)(web::method(next.method)));
            }
            resource
        } else {
            web::resource(relative)
                .guard(guard::Method(first.method.clone()))
                .route((first.handler)(web::route()))
        };
        resources.push(resource.app_data(RoutePolicies::new(policies)));
    }
    resources
}

/// What `#[derive(OpenApi)]` does with each handler its `paths(...)` lists: the operation with
/// its tags, under its path for each of its methods, and the schemas it names; and the
/// security `policy` documents.
fn describe<A: Annotation>(document: &mut OpenApi, policy: Policy) {
    let mut operation = A::operation();
    operation.security = policy.security();
    operation
        .tags
        .get_or_insert_with(Vec::new)
        .extend(A::tags().into_iter().map(ToString::to_string));
    let paths = A::methods()
        .into_iter()
        .fold(PathsBuilder::new(), |paths, method| {
            paths.path(A::path(), PathItem::new(method, operation.clone()))
        })
        .build();
    document.paths.merge(paths);
    let mut schemas = Vec::new();
    A::schemas(&mut schemas);
    document
        .components
        .get_or_insert_with(Components::new)
        .schemas
        .extend(schemas);
}

fn to_actix(method: &HttpMethod) -> Method {
    match method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Trace => Method::TRACE,
    }
}
