#ifndef RWSECRET_CLIBSECRET_SHIM_H
#define RWSECRET_CLIBSECRET_SHIM_H
// What Swift cannot do by itself with libsecret: the schema as a static C
// object, the table of entry points loaded with dlopen, and a few helpers
// that would otherwise need variadic GLib calls.
//
// libsecret (and GLib, GIO, GObject with it) is loaded with dlopen only when a
// process first touches the keyring: linking it costs every process start
// about 3 ms, and most runs (`--store file`, `--no-store`) never need it.
// The module map therefore links nothing, and no libsecret or GLib header is
// included: the few types and entry points rwsecret uses are declared here,
// as libsecret 0.20 and GLib 2.x define them (stable ABI since 2012), so the
// package builds with no header search path (a dependency may not use
// unsafe flags). The keyring tests run every entry point against a real
// gnome-keyring.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef char gchar;
typedef int gint;
typedef unsigned int guint;
typedef gint gboolean;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef size_t gsize;
typedef uint32_t GQuark;

typedef struct _GHashTable GHashTable;
typedef struct _GCancellable GCancellable;
typedef struct _GVariant GVariant;
typedef struct _GVariantType GVariantType;
typedef struct _GDBusConnection GDBusConnection;
typedef struct _GDBusProxy GDBusProxy;
typedef struct _SecretService SecretService;
typedef struct _SecretCollection SecretCollection;
typedef struct _SecretRetrievable SecretRetrievable;
typedef struct _SecretValue SecretValue;
typedef struct _SecretItem SecretItem;
typedef struct _GMainContext GMainContext;
typedef struct _GObject GObject;
typedef struct _GAsyncResult GAsyncResult;
typedef gsize GType;

typedef struct _GError { GQuark domain; gint code; gchar *message; } GError;
typedef struct _GList { gpointer data; struct _GList *next; struct _GList *prev; } GList;

typedef guint (*GHashFunc)(gconstpointer key);
typedef gboolean (*GEqualFunc)(gconstpointer a, gconstpointer b);
typedef void (*GDestroyNotify)(gpointer data);
typedef void (*GAsyncReadyCallback)(GObject *source, GAsyncResult *result, gpointer data);

typedef enum { G_BUS_TYPE_SESSION = 2 } GBusType;
typedef enum { G_DBUS_CALL_FLAGS_NONE = 0, G_DBUS_CALL_FLAGS_NO_AUTO_START = 1 } GDBusCallFlags;

typedef enum { SECRET_SCHEMA_NONE = 0 } SecretSchemaFlags;
typedef enum {
    SECRET_SCHEMA_ATTRIBUTE_STRING = 0,
    SECRET_SCHEMA_ATTRIBUTE_INTEGER = 1,
    SECRET_SCHEMA_ATTRIBUTE_BOOLEAN = 2,
} SecretSchemaAttributeType;
typedef struct { const gchar *name; SecretSchemaAttributeType type; } SecretSchemaAttribute;
typedef struct {
    const gchar *name;
    SecretSchemaFlags flags;
    SecretSchemaAttribute attributes[32];
    gint reserved;
    gpointer reserved1, reserved2, reserved3, reserved4, reserved5, reserved6, reserved7;
} SecretSchema;
typedef enum {
    SECRET_SEARCH_NONE = 0,
    SECRET_SEARCH_ALL = 1 << 1,
    SECRET_SEARCH_UNLOCK = 1 << 2,
    SECRET_SEARCH_LOAD_SECRETS = 1 << 3,
} SecretSearchFlags;
typedef enum { SECRET_SERVICE_NONE = 0 } SecretServiceFlags;
typedef enum { SECRET_COLLECTION_NONE = 0 } SecretCollectionFlags;

/// The schema of every item rwsecret stores: `label` (string) and `order`
/// (integer, a creation counter that keeps the order passwords were added).
static const SecretSchema rws_password_schema = {
    "org.rwsecret.Password", SECRET_SCHEMA_NONE,
    {
        { "label", SECRET_SCHEMA_ATTRIBUTE_STRING },
        { "order", SECRET_SCHEMA_ATTRIBUTE_INTEGER },
        { NULL, 0 },
    },
};

/// The schema of rwsecret's identities (the private side of age recipients): `label`,
/// `kind` (`age-x25519`) and `order`. A schema of its own, so that a search of passwords
/// (the chain, `password list`, older versions of rwsecret) never returns an identity.
static const SecretSchema rws_identity_schema = {
    "org.rwsecret.Identity", SECRET_SCHEMA_NONE,
    {
        { "label", SECRET_SCHEMA_ATTRIBUTE_STRING },
        { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
        { "order", SECRET_SCHEMA_ATTRIBUTE_INTEGER },
        { NULL, 0 },
    },
};

/// The password schema (`identity` 0) or the identity schema (`identity` 1).
static inline const SecretSchema *rws_schema(int identity) { return identity ? &rws_identity_schema : &rws_password_schema; }

/// The entry points rwsecret uses, resolved by `rws_libsecret_load`.
typedef struct rws_libsecret {
    GHashTable *(*_Nonnull g_hash_table_new_full)(GHashFunc, GEqualFunc, GDestroyNotify, GDestroyNotify);
    gboolean (*_Nonnull g_hash_table_insert)(GHashTable *, gpointer key, gpointer value);
    gpointer (*_Nonnull g_hash_table_lookup)(GHashTable *, gconstpointer key);
    void (*_Nonnull g_hash_table_unref)(GHashTable *);
    guint (*_Nonnull g_str_hash)(gconstpointer);
    gboolean (*_Nonnull g_str_equal)(gconstpointer, gconstpointer);
    void (*_Nonnull g_free)(gpointer);
    gchar *(*_Nonnull g_strdup)(const gchar *);
    void (*_Nonnull g_list_free_full)(GList *, GDestroyNotify);
    void (*_Nonnull g_object_unref)(gpointer);
    void (*_Nonnull g_error_free)(GError *);
    const gchar *(*_Nonnull g_quark_to_string)(GQuark);
    GDBusConnection *(*_Nonnull g_bus_get_sync)(GBusType, GCancellable *, GError **);
    GVariant *(*_Nonnull g_dbus_connection_call_sync)(GDBusConnection *, const gchar *bus_name, const gchar *object_path,
        const gchar *interface_name, const gchar *method_name, GVariant *parameters, const GVariantType *reply_type,
        GDBusCallFlags, gint timeout_msec, GCancellable *, GError **);
    GDBusConnection *(*_Nonnull g_dbus_proxy_get_connection)(GDBusProxy *);
    GVariant *(*_Nonnull g_variant_new_string)(const gchar *);
    GVariant *(*_Nonnull g_variant_new_tuple)(GVariant *const *children, gsize n_children);
    GVariant *(*_Nonnull g_variant_get_child_value)(GVariant *, gsize index);
    gboolean (*_Nonnull g_variant_get_boolean)(GVariant *);
    GVariant *(*_Nonnull g_variant_get_variant)(GVariant *);
    void (*_Nonnull g_variant_unref)(GVariant *);
    gboolean (*_Nonnull secret_password_storev_sync)(const SecretSchema *, GHashTable *attributes, const gchar *collection,
        const gchar *label, const gchar *password, GCancellable *, GError **);
    GList *(*_Nonnull secret_service_search_sync)(SecretService *, const SecretSchema *, GHashTable *attributes,
        SecretSearchFlags, GCancellable *, GError **);
    gboolean (*_Nonnull secret_password_clearv_sync)(const SecretSchema *, GHashTable *attributes, GCancellable *, GError **);
    GHashTable *(*_Nonnull secret_retrievable_get_attributes)(SecretRetrievable *);
    const gchar *(*_Nonnull secret_value_get)(SecretValue *, gsize *length);
    void (*_Nonnull secret_value_unref)(gpointer);
    gchar *(*_Nonnull secret_service_read_alias_dbus_path_sync)(SecretService *, const gchar *alias, GCancellable *, GError **);
    GMainContext *(*_Nonnull g_main_context_new)(void);
    void (*_Nonnull g_main_context_push_thread_default)(GMainContext *);
    void (*_Nonnull g_main_context_pop_thread_default)(GMainContext *);
    gboolean (*_Nonnull g_main_context_iteration)(GMainContext *, gboolean may_block);
    void (*_Nonnull g_main_context_unref)(GMainContext *);
    void (*_Nonnull secret_service_ensure_session)(SecretService *, GCancellable *, GAsyncReadyCallback, gpointer);
    gboolean (*_Nonnull secret_service_ensure_session_finish)(SecretService *, GAsyncResult *, GError **);
    GType (*_Nonnull secret_service_get_type)(void);
    SecretService *(*_Nonnull secret_service_open_sync)(GType, const gchar *bus_name, SecretServiceFlags, GCancellable *, GError **);
    void (*_Nonnull secret_service_search_for_dbus_paths)(SecretService *, const SecretSchema *, GHashTable *attributes,
        GCancellable *, GAsyncReadyCallback, gpointer);
    gboolean (*_Nonnull secret_service_search_for_dbus_paths_finish)(SecretService *, GAsyncResult *, gchar ***unlocked,
        gchar ***locked, GError **);
    void (*_Nonnull secret_service_get_secrets_for_dbus_paths)(SecretService *, const gchar **item_paths, GCancellable *,
        GAsyncReadyCallback, gpointer);
    GHashTable *(*_Nonnull secret_service_get_secrets_for_dbus_paths_finish)(SecretService *, GAsyncResult *, GError **);
    void (*_Nonnull g_dbus_connection_call)(GDBusConnection *, const gchar *bus_name, const gchar *object_path,
        const gchar *interface_name, const gchar *method_name, GVariant *parameters, const GVariantType *reply_type,
        GDBusCallFlags, gint timeout_msec, GCancellable *, GAsyncReadyCallback, gpointer);
    GVariant *(*_Nonnull g_dbus_connection_call_finish)(GDBusConnection *, GAsyncResult *, GError **);
    GVariant *(*_Nonnull g_variant_lookup_value)(GVariant *dictionary, const gchar *key, const GVariantType *expected);
    const gchar *(*_Nonnull g_variant_get_string)(GVariant *, gsize *length);
    void (*_Nonnull g_strfreev)(gchar **);
    SecretValue *(*_Nonnull secret_value_ref)(SecretValue *);
} rws_libsecret;

/// Loads libsecret once and returns its entry points, or NULL with `*missing`
/// naming what could not be found. Call from one thread (Swift's lazy statics do).
static inline const rws_libsecret *rws_libsecret_load(const char **missing) {
    static rws_libsecret table;
    rws_libsecret *api = &table;
    void *handle = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) { *missing = "libsecret-1.so.0"; return NULL; }
#define RWS_LOAD(name) if ((*(void **)&api->name = dlsym(handle, #name)) == NULL) { *missing = #name; return NULL; }
    RWS_LOAD(g_hash_table_new_full)
    RWS_LOAD(g_hash_table_insert)
    RWS_LOAD(g_hash_table_lookup)
    RWS_LOAD(g_hash_table_unref)
    RWS_LOAD(g_str_hash)
    RWS_LOAD(g_str_equal)
    RWS_LOAD(g_free)
    RWS_LOAD(g_strdup)
    RWS_LOAD(g_list_free_full)
    RWS_LOAD(g_object_unref)
    RWS_LOAD(g_error_free)
    RWS_LOAD(g_quark_to_string)
    RWS_LOAD(g_bus_get_sync)
    RWS_LOAD(g_dbus_connection_call_sync)
    RWS_LOAD(g_dbus_proxy_get_connection)
    RWS_LOAD(g_variant_new_string)
    RWS_LOAD(g_variant_new_tuple)
    RWS_LOAD(g_variant_get_child_value)
    RWS_LOAD(g_variant_get_boolean)
    RWS_LOAD(g_variant_get_variant)
    RWS_LOAD(g_variant_unref)
    RWS_LOAD(secret_password_storev_sync)
    RWS_LOAD(secret_service_search_sync)
    RWS_LOAD(secret_password_clearv_sync)
    RWS_LOAD(secret_retrievable_get_attributes)
    RWS_LOAD(secret_value_get)
    RWS_LOAD(secret_value_unref)
    RWS_LOAD(secret_service_read_alias_dbus_path_sync)
    RWS_LOAD(g_main_context_new)
    RWS_LOAD(g_main_context_push_thread_default)
    RWS_LOAD(g_main_context_pop_thread_default)
    RWS_LOAD(g_main_context_iteration)
    RWS_LOAD(g_main_context_unref)
    RWS_LOAD(secret_service_ensure_session)
    RWS_LOAD(secret_service_ensure_session_finish)
    RWS_LOAD(secret_service_get_type)
    RWS_LOAD(secret_service_open_sync)
    RWS_LOAD(secret_service_search_for_dbus_paths)
    RWS_LOAD(secret_service_search_for_dbus_paths_finish)
    RWS_LOAD(secret_service_get_secrets_for_dbus_paths)
    RWS_LOAD(secret_service_get_secrets_for_dbus_paths_finish)
    RWS_LOAD(g_dbus_connection_call)
    RWS_LOAD(g_dbus_connection_call_finish)
    RWS_LOAD(g_variant_lookup_value)
    RWS_LOAD(g_variant_get_string)
    RWS_LOAD(g_strfreev)
    RWS_LOAD(secret_value_ref)
#undef RWS_LOAD
    return api;
}
/// A new attribute table (keys and values copied, freed with the table); NULL values are left out.
static inline GHashTable *rws_attributes(const rws_libsecret *api, const char *label, const char *order, const char *kind) {
    GHashTable *table = api->g_hash_table_new_full(api->g_str_hash, api->g_str_equal, api->g_free, api->g_free);
    if (label != NULL) api->g_hash_table_insert(table, api->g_strdup("label"), api->g_strdup(label));
    if (order != NULL) api->g_hash_table_insert(table, api->g_strdup("order"), api->g_strdup(order));
    if (kind != NULL) api->g_hash_table_insert(table, api->g_strdup("kind"), api->g_strdup(kind));
    return table;
}

/// The process's one Secret Service proxy, built on first use and kept for the life of the
/// process (NULL with `*error` set on failure). Built with `secret_service_open_sync`, not
/// `secret_service_get_sync`: libsecret caches the latter's service and watches its bus name
/// for it (one more `GetNameOwner` round trip with the bus, which `secret-tool` does not make:
/// its backend is not watched); this process keeps its own reference instead.
static inline SecretService *rws_service(const rws_libsecret *api, GError **error) {
    static SecretService *kept;
    SecretService *service = __atomic_load_n(&kept, __ATOMIC_ACQUIRE);
    if (service != NULL) return service;
    service = api->secret_service_open_sync(api->secret_service_get_type(), NULL, SECRET_SERVICE_NONE, NULL, error);
    if (service == NULL) return NULL;
    SecretService *none = NULL;
    if (!__atomic_compare_exchange_n(&kept, &none, service, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        api->g_object_unref(service);
        service = none;
    }
    return service;
}

/// Our schema's items matching `attributes`, locked or not (a list of SecretItem, free with
/// g_list_free_full and g_object_unref), searched through the process's one service
/// (`rws_service`), so no second service proxy is built (libsecret's
/// `secret_password_searchv_sync` builds one of its own). NULL with `*error` set on failure.
static inline GList *rws_search(const rws_libsecret *api, const SecretSchema *schema, GHashTable *attributes, GError **error) {
    SecretService *service = rws_service(api, error);
    if (service == NULL) return NULL;
    return api->secret_service_search_sync(service, schema, attributes, SECRET_SEARCH_ALL, NULL, error);
}

/// One item `rws_read_items` found: its `label`, `order` and `kind` attributes (NULL when
/// absent) and its secret (NULL when it was not loaded: a locked item, or none was asked for).
typedef struct {
    gchar *label;
    gchar *order;
    gchar *kind;
    SecretValue *secret;
} rws_found_item;

/// What `rws_read_items` waits for: its calls in flight and what they gave.
typedef struct rws_reading_paths rws_reading_paths;

/// One `Properties.Get` of an item's attributes in flight: where its answer goes.
typedef struct {
    rws_reading_paths *reading;
    rws_found_item *item;
} rws_attributes_call;

struct rws_reading_paths {
    const rws_libsecret *api;
    SecretService *service;
    /// The search and the session, until each has answered.
    int opening;
    /// The attributes and the secrets, until each has answered.
    int pending;
    gchar **unlocked;
    gchar **locked;
    int unlocked_count;
    int total;
    rws_found_item *items;
    rws_attributes_call *calls;
    GHashTable *secrets;
    GError *error;
};

static void rws_keep_error(rws_reading_paths *reading, GError *error) {
    if (error == NULL) return;
    if (reading->error == NULL) reading->error = error; else reading->api->g_error_free(error);
}

/// The string `key` of an a{ss} dictionary, copied (g_free), or NULL.
static inline gchar *rws_attribute(const rws_libsecret *api, GVariant *dictionary, const char *key) {
    GVariant *value = api->g_variant_lookup_value(dictionary, key, (const GVariantType *)"s");
    if (value == NULL) return NULL;
    gchar *copy = api->g_strdup(api->g_variant_get_string(value, NULL));
    api->g_variant_unref(value);
    return copy;
}

/// One item's `Attributes` arrived (a `(v)` holding an a{ss}): keeps its label, order and kind.
static void rws_on_attributes(GObject *source, GAsyncResult *result, gpointer data) {
    rws_attributes_call *call = (rws_attributes_call *)data;
    rws_reading_paths *reading = call->reading;
    const rws_libsecret *api = reading->api;
    GError *error = NULL;
    GVariant *reply = api->g_dbus_connection_call_finish((GDBusConnection *)source, result, &error);
    if (reply != NULL) {
        GVariant *boxed = api->g_variant_get_child_value(reply, 0);
        GVariant *dictionary = api->g_variant_get_variant(boxed);
        call->item->label = rws_attribute(api, dictionary, "label");
        call->item->order = rws_attribute(api, dictionary, "order");
        call->item->kind = rws_attribute(api, dictionary, "kind");
        api->g_variant_unref(dictionary);
        api->g_variant_unref(boxed);
        api->g_variant_unref(reply);
    }
    rws_keep_error(reading, error);
    reading->pending--;
}

/// The search answered: keeps the paths and asks for every item's attributes at once, while the
/// session may still be opening (the secrets wait for it; the attributes need none).
static void rws_on_paths_searched(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    rws_reading_paths *reading = (rws_reading_paths *)data;
    const rws_libsecret *api = reading->api;
    GError *error = NULL;
    api->secret_service_search_for_dbus_paths_finish(reading->service, result, &reading->unlocked, &reading->locked, &error);
    rws_keep_error(reading, error);
    reading->opening--;
    if (reading->error != NULL) return;
    int unlocked = 0, locked = 0;
    while (reading->unlocked != NULL && reading->unlocked[unlocked] != NULL) unlocked++;
    while (reading->locked != NULL && reading->locked[locked] != NULL) locked++;
    reading->unlocked_count = unlocked;
    reading->total = unlocked + locked;
    if (reading->total == 0) return;
    reading->items = (rws_found_item *)calloc((size_t)reading->total, sizeof(rws_found_item));
    reading->calls = (rws_attributes_call *)calloc((size_t)reading->total, sizeof(rws_attributes_call));
    if (reading->items == NULL || reading->calls == NULL) abort();
    GDBusConnection *bus = api->g_dbus_proxy_get_connection((GDBusProxy *)reading->service);
    for (int index = 0; index < reading->total; index++) {
        const gchar *path = index < unlocked ? reading->unlocked[index] : reading->locked[index - unlocked];
        reading->calls[index].reading = reading;
        reading->calls[index].item = &reading->items[index];
        GVariant *names[2] = { api->g_variant_new_string("org.freedesktop.Secret.Item"), api->g_variant_new_string("Attributes") };
        reading->pending++;
        api->g_dbus_connection_call(bus, "org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties", "Get",
                                    api->g_variant_new_tuple(names, 2), NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL,
                                    rws_on_attributes, &reading->calls[index]);
    }
}

static void rws_on_paths_session(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    rws_reading_paths *reading = (rws_reading_paths *)data;
    GError *error = NULL;
    // Not reported from here: loading the secrets opens a session again, and says why it cannot.
    if (!reading->api->secret_service_ensure_session_finish(reading->service, result, &error) && error != NULL) {
        reading->api->g_error_free(error);
    }
    reading->opening--;
}

static void rws_on_paths_secrets(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    rws_reading_paths *reading = (rws_reading_paths *)data;
    GError *error = NULL;
    reading->secrets = reading->api->secret_service_get_secrets_for_dbus_paths_finish(reading->service, result, &error);
    rws_keep_error(reading, error);
    reading->pending--;
}

/// Frees what `rws_read_items` returned (its secrets unreferenced, so wiped by libsecret).
static inline void rws_found_free(const rws_libsecret *api, rws_found_item *items, int count) {
    if (items == NULL) return;
    for (int index = 0; index < count; index++) {
        api->g_free(items[index].label);
        api->g_free(items[index].order);
        api->g_free(items[index].kind);
        if (items[index].secret != NULL) api->secret_value_unref(items[index].secret);
    }
    free(items);
}

/// Our schema's items matching `attributes`, locked or not, with their attributes and, with
/// `load_secrets`, the unlocked ones' secrets: `*count` items (free with `rws_found_free`),
/// or NULL with `*count` 0 when none matched; NULL with `*error` set on failure.
///
/// What `secret_service_search_sync` with `SECRET_SEARCH_ALL | SECRET_SEARCH_LOAD_SECRETS`
/// gives, in the round trips `secret-tool lookup` makes, without the item proxies that search
/// builds (per item: two `AddMatch`, `StartServiceByName` and `GetNameOwner` with the bus, then
/// `GetAll` with the daemon, one after the other, before the secrets can be asked for). The
/// search (`SearchItems`, through libsecret's D-Bus path API) and the Diffie-Hellman session
/// (`OpenSession`) go out together; then the secrets (`GetSecrets`) and each item's
/// `Attributes` (one `Properties.Get` each, as the `Locked` of the collection is read) go out
/// together. All on a main context of this call's own, which this thread runs until each call
/// has answered.
static inline rws_found_item *rws_read_items(const rws_libsecret *api, const SecretSchema *schema, GHashTable *attributes,
                                             int load_secrets, int *count, GError **error) {
    *count = 0;
    SecretService *service = rws_service(api, error);
    if (service == NULL) return NULL;
    GMainContext *context = api->g_main_context_new();
    api->g_main_context_push_thread_default(context);
    rws_reading_paths reading = { api, service, load_secrets ? 2 : 1, 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL };
    // The search first: its request leaves while libsecret computes its half of the exchange.
    api->secret_service_search_for_dbus_paths(service, schema, attributes, NULL, rws_on_paths_searched, &reading);
    if (load_secrets) api->secret_service_ensure_session(service, NULL, rws_on_paths_session, &reading);
    // Until the search and the session have answered (the attributes may still be on their way).
    while (reading.opening > 0) api->g_main_context_iteration(context, 1);
    if (reading.error == NULL && load_secrets && reading.unlocked_count > 0) {
        reading.pending++;
        api->secret_service_get_secrets_for_dbus_paths(service, (const gchar **)reading.unlocked, NULL, rws_on_paths_secrets, &reading);
    }
    while (reading.pending > 0) api->g_main_context_iteration(context, 1);
    if (reading.error == NULL && reading.secrets != NULL) {
        for (int index = 0; index < reading.unlocked_count; index++) {
            SecretValue *value = (SecretValue *)api->g_hash_table_lookup(reading.secrets, reading.unlocked[index]);
            // A new reference: the table's goes with the table.
            if (value != NULL) reading.items[index].secret = api->secret_value_ref(value);
        }
    }
    api->g_main_context_pop_thread_default(context);
    api->g_main_context_unref(context);
    free(reading.calls);
    if (reading.secrets != NULL) api->g_hash_table_unref(reading.secrets);
    if (reading.unlocked != NULL) api->g_strfreev(reading.unlocked);
    if (reading.locked != NULL) api->g_strfreev(reading.locked);
    if (reading.error != NULL) {
        rws_found_free(api, reading.items, reading.total);
        *error = reading.error;
        return NULL;
    }
    *count = reading.total;
    return reading.items;
}

/// Connects to the session bus (GDBus's shared connection, kept for the life of the process:
/// GLib closes it with the last reference, and libsecret would then connect and
/// authenticate a second time; a test counts the connects). NULL with `*error` set on failure.
static inline GDBusConnection *rws_session_bus(const rws_libsecret *api, GError **error) {
    GDBusConnection *bus = api->g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, error);
    if (bus == NULL) return NULL;
    static GDBusConnection *kept;
    GDBusConnection *none = NULL;
    if (!__atomic_compare_exchange_n(&kept, &none, bus, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) api->g_object_unref(bus);
    return bus;
}

/// Asks the session bus whether some process owns `name` (never activates anything).
/// Returns 1 or 0, or -1 with `*error` set.
static inline int rws_name_has_owner(const rws_libsecret *api, const char *name, GError **error) {
    GDBusConnection *bus = rws_session_bus(api, error);
    if (bus == NULL) return -1;
    GVariant *argument = api->g_variant_new_string(name);
    GVariant *parameters = api->g_variant_new_tuple(&argument, 1);
    GVariant *reply = api->g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        parameters, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL, error);
    if (reply == NULL) return -1;
    GVariant *value = api->g_variant_get_child_value(reply, 0);
    int owned = api->g_variant_get_boolean(value) ? 1 : 0;
    api->g_variant_unref(value);
    api->g_variant_unref(reply);
    return owned;
}

/// Looks up the `default` collection. Returns 1 with `*locked` and `*path`
/// (free with g_free) set, 0 when there is none, -1 with `*error` set.
/// The alias is read through the service (`ReadAlias`) and the collection's `Locked` property
/// asked for directly (`Properties.Get`): libsecret's collection proxy
/// (`secret_collection_for_alias_sync`) cost three more round trips before the search could
/// start (`StartServiceByName` and `GetNameOwner` with the bus, `GetAll` with the daemon).
static inline int rws_default_collection(const rws_libsecret *api, int *locked, char **path, GError **error) {
    // The process's one service (`rws_service`): the search that follows uses it too.
    SecretService *service = rws_service(api, error);
    if (service == NULL) return -1;
    gchar *found = api->secret_service_read_alias_dbus_path_sync(service, "default", NULL, error);
    if (found == NULL) return (error != NULL && *error != NULL) ? -1 : 0;
    GVariant *names[2] = { api->g_variant_new_string("org.freedesktop.Secret.Collection"), api->g_variant_new_string("Locked") };
    GVariant *reply = api->g_dbus_connection_call_sync(
        api->g_dbus_proxy_get_connection((GDBusProxy *)service), "org.freedesktop.secrets", found,
        "org.freedesktop.DBus.Properties", "Get", api->g_variant_new_tuple(names, 2), NULL,
        G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, error);
    if (reply == NULL) {
        api->g_free(found);
        return -1;
    }
    GVariant *boxed = api->g_variant_get_child_value(reply, 0);
    GVariant *value = api->g_variant_get_variant(boxed);
    *locked = api->g_variant_get_boolean(value) ? 1 : 0;
    api->g_variant_unref(value);
    api->g_variant_unref(boxed);
    api->g_variant_unref(reply);
    *path = found;
    return 1;
}

/// The GError's domain as a string (`g-io-error-quark`, `g-dbus-error-quark`, `secret-error`…).
static inline const char *rws_error_domain(const rws_libsecret *api, const GError *error) {
    return api->g_quark_to_string(error->domain);
}

#endif
