import _classad_standin

# Until condorsim.classad exports its wire API, the codec is tested against a stand-in.
_classad_standin.install()
