// "Any Hugging Face repository": type owner/name, list its GGUF files (the hub's tree API, run on
// Qt's thread pool) as one row per quantization with its size, shard count and fit for the current
// document (the shape read from one file's header by range requests), and download one.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <vector>

#include <optional>
#include <string>

#include "app/hub/fit_estimate.h"
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
    // What the Fit column is for (Get models' document, budget and probe; the machine's memory,
    // unset: measured with the listing). A listing already shown is estimated again.
    void set_fit_inputs(std::optional<hub::MachineMemory> machine, const hub::FitOptions& options);
    // The estimates shown, one per listed choice (empty when the shape could not be read; tests).
    const std::vector<hub::FitEstimate>& fits() const { return fits_; }
    enum Column { QuantColumn, SizeColumn, FilesColumn, FitColumn, FirstFileColumn };
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
        std::optional<ModelConfig> shape;  // from one file's header; unset: shape_error says why
        std::string shape_error;
        hub::MachineMemory machine;
    };
    void show_listing(const Listing& listing);
    void show_fits();  // fills the Fit column from shape_ and the fit inputs

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
    std::optional<hub::MachineMemory> machine_;  // as given; unset: the listing's measurement
    hub::MachineMemory measured_machine_;
    hub::FitOptions fit_options_;
    std::optional<ModelConfig> shape_;
    std::string shape_error_;
    std::vector<hub::FitEstimate> fits_;
};

}  // namespace snapdoc::ui
