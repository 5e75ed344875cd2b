// SPDX-License-Identifier: Apache-2.0
// ObjectTracker: an in-memory API server for tests (client-go's testing.ObjectTracker, with
// the semantics controller-runtime's fake client adds), behind testing::FakeClient.
//
// What it does as the API server does (checked by one test suite against both,
// tests/clientsuite):
// - every write takes the next resourceVersion of one counter; a write with a stale
//   resourceVersion is a Conflict; uid and creationTimestamp are set on create and kept;
// - create refuses a name in use (AlreadyExists) and makes one from generateName;
// - resources registered with a status subresource (addStatusSubresource(); FakeClient
//   registers the built-in ones) ignore status in update and take only status in
//   updateStatus, and keep metadata.generation: 1 on create, +1 when anything but metadata
//   and status changes;
// - merge patches and JSON patches; server-side apply creates, or merges the configuration
//   in (without field ownership: no apply conflicts);
// - remove of an object with finalizers sets deletionTimestamp; it goes once an update
//   removes the last finalizer; preconditions (uid, resourceVersion) are checked;
// - every change is a watch event (ADDED, MODIFIED, DELETED) to watch(), which replays from a
//   resourceVersion, so a Reflector and a SharedIndexInformer run on it unchanged.
// Not modelled: namespaces' existence, admission, validation against schemas, defaulting,
// field selectors beyond metadata.name and metadata.namespace, strategic merge patches
// (refused: use a merge patch), field managers.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/client/restclient.h>
#include <qcm/client/watchstream.h>

#include <QtCore/QJsonObject>

#include <memory>

namespace qcm::testing {

class QCM_SDK_EXPORT ObjectTracker
{
public:
    ObjectTracker();
    ~ObjectTracker();
    ObjectTracker(const ObjectTracker &) = delete;
    ObjectTracker &operator=(const ObjectTracker &) = delete;

    // controller-runtime's WithStatusSubresource.
    void addStatusSubresource(const client::GroupVersionResource &gvr);
    // Seeds an object as if created (fake.NewClientBuilder().WithObjects()), keeping the uid,
    // creationTimestamp and deletionTimestamp it carries (an object as it exists on a server);
    // the resourceVersion is the tracker's.
    client::ObjectResult add(const client::GroupVersionResource &gvr, const client::Object &object);

    client::ObjectResult get(
        const client::GroupVersionResource &gvr, const QString &ns, const QString &name) const;
    client::ListResult list(const client::GroupVersionResource &gvr, const QString &ns,
        const client::ListOptions &options) const;
    client::ObjectResult create(
        const client::GroupVersionResource &gvr, const client::Object &object);
    client::ObjectResult update(
        const client::GroupVersionResource &gvr, const client::Object &object, bool status);
    client::ObjectResult patch(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, client::PatchType type, const QByteArray &patch,
        const client::PatchOptions &options);
    client::ObjectResult remove(const client::GroupVersionResource &gvr, const QString &ns,
        const QString &name, const client::DeleteOptions &options);
    // The events of `gvr` in namespace `ns` (all when empty) after resourceVersion `from`
    // ("" or "0": from now on), then as they happen, until stop().
    Result<std::shared_ptr<client::WatchStream>, client::Status> watch(
        const client::GroupVersionResource &gvr, const QString &ns,
        const client::ListOptions &options);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::testing
