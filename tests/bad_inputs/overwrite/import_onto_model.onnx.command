import {copy} -o {copy}
