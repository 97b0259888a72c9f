"""A baseline of your own beside HyLa: scikit-learn's logistic regression
on the precomputed features S^K X (the SGC model, fitted by L-BFGS).

hylaflow runs it as a command stage (baseline.hcl):
    logreg.py FEATURES.npz METRICS.json
FEATURES.npz is the precompute stage's output as numpy.load opens it
(X, labels, train, val, test; info.json in the same zip); the metrics
JSON it writes joins the evaluate table as a row.
"""
import json
import os
import sys
import zipfile

import numpy as np
from sklearn.linear_model import LogisticRegression


def main(features_path, metrics_path):
    data = np.load(features_path)
    X, y = data["X"], data["labels"]
    train, val, test = data["train"], data["val"], data["test"]
    info = json.loads(zipfile.ZipFile(features_path).read("info.json"))
    seed = int(os.environ.get("HYLAFLOW_SEED", "0"))

    model = LogisticRegression(C=float(os.environ.get("LOGREG_C", "1.0")),
                               max_iter=1000, random_state=seed)
    model.fit(X[train], y[train])
    acc = {name: float(model.score(X[idx], y[idx]))
           for name, idx in (("train", train), ("val", val), ("test", test))}
    print(f"{info['name']}: train {acc['train']:.4f} val {acc['val']:.4f} test {acc['test']:.4f}")
    with open(metrics_path, "w") as f:
        json.dump({"dataset": info["name"], "model": "sgc-sklearn", "metric": "accuracy",
                   "seed": seed, "protocol": "last", **acc}, f)  # the fitted model, not one chosen on val


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
