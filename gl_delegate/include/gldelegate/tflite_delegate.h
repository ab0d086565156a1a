/* gldelegate as a TFLite delegate: hand it to TFLite's (LiteRT's) own
 * interpreter, which then runs the nodes gldelegate can run through its GL
 * backend (or its CPU kernels, with backend cpu) and keeps the rest on its
 * own kernels. Mirrors TfLiteGpuDelegateV2Create / TfLiteGpuDelegateV2Delete:
 *
 *   GldOptions* options = GldOptionsCreate();
 *   GldOptionsSetBackend(options, GLD_BACKEND_GL);
 *   struct TfLiteDelegate* delegate = GldTfLiteDelegateCreate(options);
 *   GldOptionsDelete(options);            // the delegate keeps a copy
 *   if (delegate == NULL) puts(GldLastErrorMessage());
 *   interpreter->ModifyGraphWithDelegate(delegate);   // or TfLiteInterpreterOptionsAddDelegate
 *   ...                                   // after the interpreter is gone:
 *   GldTfLiteDelegateDelete(delegate);
 *
 * The same library is an external delegate too: it exports
 * tflite_plugin_create_delegate and tflite_plugin_destroy_delegate
 * (TFLite's external delegate interface), for LiteRT's Python
 * load_delegate("libgldelegate.so", {"backend": "gl"}) and benchmark_model
 * --external_delegate_path. See docs/DELEGATE.md.
 *
 * Checked against TFLite 2.20 / LiteRT 2.3.0 (ai-edge-litert). A delegate is
 * used by one interpreter at a time and must outlive it. */
#ifndef GLDELEGATE_TFLITE_DELEGATE_H_
#define GLDELEGATE_TFLITE_DELEGATE_H_

#include <stddef.h>

#include "gldelegate/export.h"
#include "gldelegate/gldelegate.h"

#ifdef __cplusplus
extern "C" {
#endif

struct TfLiteDelegate; /* TFLite's, from tensorflow/lite/core/c/common.h */

/* A delegate with a copy of `options` (NULL: the defaults). NULL on failure
 * (an option CheckOption refuses), with GldLastErrorMessage() saying why. */
GLD_EXPORT struct TfLiteDelegate* GldTfLiteDelegateCreate(const GldOptions* options);
/* Deletes a delegate from GldTfLiteDelegateCreate; NULL is ignored. */
GLD_EXPORT void GldTfLiteDelegateDelete(struct TfLiteDelegate* delegate);
/* Ends the delegate's partition invoke running now (on the interpreter's
 * thread; call this from another thread or a signal handler: one atomic
 * store) before its next node, GL segment step or loop iteration: the
 * kernel fails with "invoke cancelled (Interpreter::Cancel) ...", which
 * TFLite's Invoke returns as kTfLiteError. A call while none of its
 * partitions runs does nothing (TFLite's rule). LiteRT offers a delegate
 * kernel no way to see its own interpreter's Cancel: TFLite's
 * Interpreter::Cancel (and LiteRT's cancellation function) is checked
 * between nodes, and a delegate partition is one node, so call both to end
 * a long partition. GLD_INVALID_ARGUMENT for NULL or a delegate this
 * library did not make. */
GLD_EXPORT GldStatus GldTfLiteDelegateCancel(struct TfLiteDelegate* delegate);

/* TFLite's external delegate interface. Keys are option names of
 * gldelegate/options.inc (backend, precision, num_threads, log_level,
 * gpu_deny_ops, cache_dir, model_token, ...) and the TFLite GPU delegate's
 * serialization_dir (= cache_dir), is_precision_loss_allowed (1: fp16) and
 * inference_preference (ignored). An unknown key or a bad value is told
 * through report_error and NULL is returned. */
GLD_EXPORT struct TfLiteDelegate* tflite_plugin_create_delegate(char** options_keys, char** options_values,
                                                                size_t num_options,
                                                                void (*report_error)(const char*));
GLD_EXPORT void tflite_plugin_destroy_delegate(struct TfLiteDelegate* delegate);

#ifdef __cplusplus
}
#endif

#endif /* GLDELEGATE_TFLITE_DELEGATE_H_ */
