// The real main window with the demo model (resources/models/snapdoc-demo.gguf) loaded and a
// document prefilled, answering greedily and briefly: the setup the app-level Qt tests share.
#pragma once

#include <QString>
#include <memory>

#include "tests/ui/support/ui_test_support.h"
#include "ui/main/main_window.h"

namespace snapdoc::test {

// Whether the demo model is in the checkout (tests QSKIP without it).
bool have_demo_model();

// Builds and shows the window (`dialogs` receives the recording provider it uses), loads the demo
// model and prefills `document`. Returns null (after a QTest failure message) when either step
// does not finish.
std::unique_ptr<ui::MainWindow> demo_window(services::LibraryStore& store, const QString& document,
                                            RecordingDialogs** dialogs = nullptr);

// Types `question` into the question box and presses Enter; true once its answer is done.
bool ask_and_wait(ui::MainWindow& w, const QString& question);

}  // namespace snapdoc::test
