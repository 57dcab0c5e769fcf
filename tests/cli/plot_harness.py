"""What the plot script tests share: argv SCRIPT WORK_DIR, a skip (exit 77, CTest's skip code) without
matplotlib, the Agg backend, the script loaded as a module and its main() run with arguments."""
import importlib.util
import os
import sys


class Script:
    def __init__(self):
        try:
            import matplotlib
        except ImportError:
            print("no matplotlib: skipped")
            sys.exit(77)
        matplotlib.use("Agg")
        import matplotlib.pyplot

        self.plt = matplotlib.pyplot
        self.path, self.work = sys.argv[1], sys.argv[2]
        os.makedirs(self.work, exist_ok=True)
        spec = importlib.util.spec_from_file_location("script_under_test", self.path)
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    def main(self, *args):
        """The figures main() made (left open by pyplot, so their artists can be inspected)."""
        before = set(self.plt.get_fignums())
        sys.argv = [self.path, *args]
        self.module.main()
        return [self.plt.figure(n) for n in self.plt.get_fignums() if n not in before]
