"""The grid universe's parameters (``SubmitHash::SetGridParams``).

How this works
--------------
A grid job names its resource with ``grid_resource`` (its first word is the grid type:
condor, batch, arc, ec2, gce, azure, and the batch system names). Batch jobs take the
``batch_*`` commands, ARC jobs the ``arc_*`` ones; ec2, gce and azure jobs create cloud
instances and need their credentials and image (``ec2_ami_id``, ``gce_image``,
``gce_machine_type``, ``azure_image``...). File names (key files, user data, key pair
output) are made absolute against the job's Iwd. ``ec2_parameter_<name>`` commands
become ``EC2Param_<name>`` with the names listed in ``EC2ParamNames``; ``ec2_tag_<name>``
and ``cloud_label_<name>`` become ``EC2Tag<name>``/``CloudLabel<name>`` listed in
``EC2TagNames``/``CloudLabelNames`` (an ec2 job gets a ``Name`` tag, its executable,
unless ``WantNameTag = false``). condor_submit does not open the credential files
(``SUBMIT_SKIP_FILECHECKS`` is true by default), nor does condorsim.
"""

from __future__ import annotations

from ._commands import bool_command, parse_expr_command
from ._job import GRID, Attrs, JobInput
from ._paths import join_path
from ._universe import grid_type_of

_STRINGS = (
    ("arc_rte", "ArcRte"), ("arc_resources", "ArcResources"),
    ("arc_application", "ArcApplication"), ("arc_data_staging", "ArcDataStaging"),
    ("batch_extra_submit_args", "BatchExtraSubmitArgs"), ("batch_project", "BatchProject"),
    ("batch_queue", "BatchQueue"),
)  # fmt: skip
_INSTANCE_ROLE = "FROM INSTANCE"


def _string(job: JobInput, ad: Attrs, key: str, attr: str, alt: str | None = None) -> str | None:
    value = job.param(key, alt or attr)
    if value is not None:
        ad[attr] = value
    return value


def _require(job: JobInput, ad: Attrs, key: str, attr: str, message: str, needed: bool) -> None:
    if _string(job, ad, key, attr) is None and needed and job.lookup(ad, attr) is None:
        raise job.error(message, key)


def set_grid(job: JobInput, ad: Attrs) -> None:
    if job.universe != GRID:
        return
    resource = job.param("grid_resource", "GridResource")
    if resource is not None:
        ad["GridResource"] = resource
        if resource.lower() == "ec2":
            raise job.error("EC2 grid jobs require a service URL\n", "grid_resource")
        job.grid_type = grid_type_of(resource)[0]
    elif job.lookup(ad, "GridResource") is None:
        raise job.error("No resource identifier was found.\n", "grid_resource")
    kind = job.grid_type.lower()
    for key, attr in _STRINGS:
        _string(job, ad, key, attr)
    runtime = job.param("batch_runtime", "BatchRuntime")
    if runtime is not None:
        ad["BatchRuntime"] = parse_expr_command(job, "BatchRuntime", runtime, "batch_runtime")
    if kind == "batch":
        job.use_default_resources = False
    _credentials(job, ad, kind)
    if kind == "ec2":
        if job.lookup(ad, "EC2AccessKeyId") is None:
            raise job.error("EC2 jobs require a 'ec2_access_key_id' or 'aws_access_key_id_file' "
                            "parameter\n", "grid_resource")  # fmt: skip
        if job.lookup(ad, "EC2SecretAccessKey") is None:
            raise job.error("EC2 jobs require a 'ec2_secret_access_key' or "
                            "'aws_secret_access_key_file' parameter\n", "grid_resource")  # fmt: skip
    _ec2(job, ad, kind)
    _tags(job, ad, "ec2_tag_names", "EC2TagNames", "ec2_tag_", "EC2Tag", kind)
    _tags(job, ad, "cloud_label_names", "CloudLabelNames", "cloud_label_", "CloudLabel", kind)
    _gce(job, ad, kind)
    _azure(job, ad, kind)


def _credentials(job: JobInput, ad: Attrs, kind: str) -> None:
    for keys, attr in (
        (("ec2_access_key_id", "aws_access_key_id_file"), "EC2AccessKeyId"),
        (("ec2_secret_access_key", "aws_secret_access_key_file"), "EC2SecretAccessKey"),
    ):
        value = job.param(keys[0], attr) or job.param(keys[1], attr)
        if value is None:
            continue
        if value.upper() == _INSTANCE_ROLE:
            ad["EC2AccessKeyId"] = _INSTANCE_ROLE
            ad["EC2SecretAccessKey"] = _INSTANCE_ROLE
        else:
            ad[attr] = join_path(job.iwd, value)


def _ec2(job: JobInput, ad: Attrs, kind: str) -> None:
    keypair = job.param("ec2_keypair", "EC2KeyPair") or job.param("ec2_keyp_air", "EC2KeyPair")
    if keypair is not None:
        ad["EC2KeyPair"] = keypair
    keyfile = job.param("ec2_keypair_file", "EC2KeyPairFile") or job.param(
        "ec2_key_pair_file", "EC2KeyPairFile"
    )
    if keyfile is not None:
        if job.lookup(ad, "EC2KeyPair") is not None:
            job.warn("EC2 job(s) contain both ec2_keypair && ec2_keypair_file, ignoring "
                     "ec2_keypair_file")  # fmt: skip
        else:
            ad["EC2KeyPairFile"] = join_path(job.iwd, keyfile)
    _string(job, ad, "ec2_security_groups", "EC2SecurityGroups")
    _string(job, ad, "ec2_security_ids", "EC2SecurityIDs")
    _require(job, ad, "ec2_ami_id", "EC2AmiID", 'EC2 jobs require a "ec2_ami_id" parameter\n',
             kind == "ec2")  # fmt: skip
    _string(job, ad, "ec2_instance_type", "EC2InstanceType")
    _string(job, ad, "ec2_vpc_subnet", "EC2VpcSubnet")
    _string(job, ad, "ec2_vpc_ip", "EC2VpcIp")
    _string(job, ad, "ec2_elastic_ip", "EC2ElasticIp")
    _string(job, ad, "ec2_availability_zone", "EC2AvailabilityZone")
    volumes = job.param("ec2_ebs_volumes", "EC2ElasticBlockStorageVolumes")
    if volumes is not None:
        items = [item for item in volumes.lstrip(" ").split(",") if item.strip()]
        if not items or any(item.count(":") != 1 for item in items):
            raise job.error(
                "'ec2_ebs_volumes' has incorrect format.\nThe format shoud be like "
                '"<instance_id>:<devicename>"\ne.g.> For single volume: ec2_ebs_volumes = '
                "vol-35bcc15e:hda1\n      For multiple disks: ec2_ebs_volumes = "
                "vol-35bcc15e:hda1,vol-35bcc16f:hda2\n",
                "ec2_ebs_volumes",
            )
        if job.lookup(ad, "EC2AvailabilityZone") is None:
            raise job.error("'ec2_ebs_volumes' requires 'ec2_availability_zone'\n",
                            "ec2_ebs_volumes")  # fmt: skip
        ad["EC2ElasticBlockStorageVolumes"] = volumes
    _string(job, ad, "ec2_spot_price", "EC2SpotPrice")
    _string(job, ad, "ec2_block_device_mapping", "EC2BlockDeviceMapping")
    _string(job, ad, "ec2_user_data", "EC2UserData")
    data_file = job.param("ec2_user_data_file", "EC2UserDataFile")
    if data_file is not None:
        ad["EC2UserDataFile"] = join_path(job.iwd, data_file)
    _string(job, ad, "ec2_iam_profile_arn", "EC2IamProfileArn")
    profile = job.param("ec2_iam_profile_name", "EC2IamProfileName")
    if profile is not None:
        if job.lookup(ad, "EC2IamProfileArn") is None:
            job.warn("EC2 job(s) contain both ec2_iam_profile_arn and ec2_iam_profile_name; "
                     "ignoring ec2_iam_profile_name.")  # fmt: skip
        else:
            ad["EC2IamProfileName"] = profile
    _parameters(job, ad)


def _parameters(job: JobInput, ad: Attrs) -> None:
    names_text = job.param("ec2_parameter_names", "EC2ParamNames")
    if names_text is None:
        looked = job.lookup(ad, "EC2ParamNames")
        names_text = looked if isinstance(looked, str) else ""
    names = names_text.replace(",", " ").split()
    for lower, (key, raw) in sorted(job.table.user.items()):
        if not lower.startswith("ec2_parameter_") or lower == "ec2_parameter_names":
            continue
        name = key[len("ec2_parameter_") :]
        ad[f"EC2Param_{name}"] = raw
        job.table.used.add(lower)
        if not any(n.replace(".", "_").lower() == name.lower() for n in names):
            names.append(name)
    if names:
        ad["EC2ParamNames"] = ", ".join(names)


def _tags(job: JobInput, ad: Attrs, names_key: str, names_attr: str, prefix: str,
          attr_prefix: str, kind: str) -> None:  # fmt: skip
    names_text = job.param(names_key, names_attr)
    if names_text is None:
        looked = job.lookup(ad, names_attr)
        names_text = looked if isinstance(looked, str) else ""
    names = names_text.replace(",", " ").split()
    for lower, (key, _raw) in sorted(job.table.user.items()):
        name = None
        if lower.startswith(prefix) and len(lower) > len(prefix):
            name = key[len(prefix) :]
        elif lower.startswith(attr_prefix.lower()) and len(lower) > len(attr_prefix):
            name = key[len(attr_prefix) :]
        if name is None or name.lower().startswith("names"):
            continue
        if name.lower() not in (n.lower() for n in names):
            names.append(name)
    for name in names:
        value = job.param(prefix + name, attr_prefix + name)
        if value is not None:
            ad[attr_prefix + name] = value
    if kind == "ec2" and "name" not in (n.lower() for n in names):
        if bool_command(job, "WantNameTag", None, True):
            cmd = job.lookup(ad, "Cmd")
            if isinstance(cmd, str):
                ad[f"{attr_prefix}Name"] = cmd
    if names:
        ad[names_attr] = ",".join(names)


def _gce(job: JobInput, ad: Attrs, kind: str) -> None:
    auth = job.param("gce_auth_file", "GceAuthFile")
    if auth is not None:
        ad["GceAuthFile"] = join_path(job.iwd, auth)
    _string(job, ad, "gce_account", "GceAccount")
    _require(job, ad, "gce_image", "GceImage", 'GCE jobs require a "gce_image" parameter\n',
             kind == "gce")  # fmt: skip
    _require(job, ad, "gce_machine_type", "GceMachineType",
             'GCE jobs require a "gce_machine_type" parameter\n', kind == "gce")  # fmt: skip
    metadata = job.param("gce_metadata", "GceMetadata")
    if metadata is not None:
        ad["GceMetadata"] = ",".join(item.strip(" \t\r\n") for item in metadata.split(",")
                                     if item.strip(" \t\r\n"))  # fmt: skip
    metadata_file = job.param("gce_metadata_file", "GceMetadataFile")
    if metadata_file is not None:
        ad["GceMetadataFile"] = join_path(job.iwd, metadata_file)
    if job.has("gce_preemptible", "GcePreemptible"):
        ad["GcePreemptible"] = bool_command(job, "gce_preemptible", "GcePreemptible", False)
    json_file = job.param("gce_json_file", "GceJsonFile")
    if json_file is not None:
        ad["GceJsonFile"] = join_path(job.iwd, json_file)


def _azure(job: JobInput, ad: Attrs, kind: str) -> None:
    auth = job.param("azure_auth_file", "AzureAuthFile")
    if auth is not None:
        ad["AzureAuthFile"] = join_path(job.iwd, auth)
    for key, attr in (("azure_image", "AzureImage"), ("azure_location", "AzureLocation"),
                      ("azure_size", "AzureSize"), ("azure_admin_username", "AzureAdminUsername"),
                      ("azure_admin_key", "AzureAdminKey")):  # fmt: skip
        _require(job, ad, key, attr, f'\nERROR: Azure jobs require an "{key}" parameter\n',
                 kind == "azure")  # fmt: skip
