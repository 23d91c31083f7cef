// "Any Hugging Face repository": type owner/name, list its GGUF files (the hub's tree API, run on
// Qt's thread pool) as one row per quantization with its size and shard count, and download one.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <vector>

#include "app/hub/hub_endpoint.h"
#include "app/hub/hub_tree.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace snapdoc::ui {

class RepoBrowser : public QWidget {
    Q_OBJECT
public:
    explicit RepoBrowser(QWidget* parent = nullptr);
    ~RepoBrowser() override;

    void set_endpoint(const hub::HubEndpoint& endpoint) { endpoint_ = endpoint; }
    // Lists a repository: `text` is owner/name or its page address from the browser (also what
    // the List button does with the typed text).
    void list(const QString& text);
    QTableWidget* table() const { return table_; }

signals:
    void downloadRequested(const QString& repo, const QString& revision,
                           const snapdoc::hub::GgufChoice& choice);
    void listed(int choices);  // the listing arrived (tests)
    void listFailed(const QString& message);

private:
    struct Listing {
        std::string repo;
        std::vector<hub::GgufChoice> choices;
        std::string error;
    };
    void show_listing(const Listing& listing);

    hub::HubEndpoint endpoint_;
    QLineEdit* repo_edit_;
    QPushButton* list_button_;
    QPushButton* download_button_;
    QTableWidget* table_;
    QLabel* status_;
    QFutureWatcher<Listing>* watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::string listed_repo_;
    std::vector<hub::GgufChoice> choices_;
};

}  // namespace snapdoc::ui
